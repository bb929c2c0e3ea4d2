// The server's first page: every session of every configured store, newest first, each a link to the
// same viewer.
import type { ListedSession } from "../view.js";
import { formatCount, formatTime, h } from "./dom.js";

export function renderSessionList(
  sessions: readonly ListedSession[],
  stores: readonly string[],
): HTMLElement {
  const rows = sessions.map((s) =>
    h(
      "tr",
      { class: "session" },
      h("td", {}, s.store),
      h("td", {}, h("a", { href: s.href }, s.id)),
      h("td", {}, s.title ?? ""),
      h("td", {}, formatTime(s.updatedAt)),
      h("td", { class: "num" }, formatCount(s.events)),
      h("td", {}, s.parent ? `fork of ${s.parent.sessionId} at ${s.parent.seq}` : ""),
    ),
  );
  return h(
    "main",
    { class: "list" },
    h("h1", {}, "Bridle sessions"),
    h("p", { class: "stores" }, `stores: ${stores.join(", ")} · ${sessions.length} sessions`),
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h("tr", {}, ...["store", "session", "title", "updated", "events", ""].map((t) => h("th", {}, t))),
      ),
      h("tbody", {}, ...rows),
    ),
  );
}
