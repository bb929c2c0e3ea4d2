// The system prompt and tools the model was given, each time they changed in the session: the prompt in
// full, each tool a folded row whose description and input schema open under it. Sessions recorded before
// model requests carried their setup have none, and the tab says so rather than showing nothing.
import type { SessionView } from "../view.js";
import { body } from "./data.js";
import { h } from "./dom.js";

export function renderSetup(view: SessionView): HTMLElement {
  const main = h("main", { class: "setup" });
  if (view.setups.length === 0) {
    main.append(
      h(
        "p",
        { class: "empty" },
        "This session recorded no system prompt or tool list (it was recorded before Bridle kept them).",
      ),
    );
    return main;
  }
  for (const setup of view.setups) {
    const who = setup.agent ? `${setup.agent} · ` : "";
    const section = h(
      "section",
      { class: `setup-entry${setup.depth ? " nested" : ""}`, "data-seq": String(setup.seq) },
      h(
        "h2",
        {},
        `${who}from ${(view.turns[setup.turn - 1]?.label ?? `turn ${setup.turn}`).toLowerCase()} (event ${setup.seq})`,
      ),
      h("h3", {}, "System prompt"),
    );
    const system = body(setup.system);
    section.append(
      system ? h("pre", { class: "system-prompt" }, system) : h("p", { class: "empty" }, "none"),
      h("h3", {}, `Tools (${setup.tools.length})`),
    );
    const list = h("div", { class: "tool-list" });
    for (const tool of setup.tools) {
      const description = body(tool.description);
      const first = description.split("\n")[0] ?? "";
      const gist = first.length > 100 ? `${first.slice(0, 100)}…` : first;
      list.append(
        h(
          "details",
          { class: "tool-entry" },
          h("summary", {}, h("code", {}, tool.name), " ", h("span", { class: "tool-gist" }, gist)),
          // Said in full only when the folded line does not already say it all.
          gist !== description && h("pre", { class: "tool-description" }, description),
          h("pre", { class: "tool-schema" }, body(tool.schema)),
        ),
      );
    }
    section.append(list);
    main.append(section);
  }
  return main;
}
