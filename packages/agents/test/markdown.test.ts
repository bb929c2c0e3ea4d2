import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Harness } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agents, loadAgentDefinitions, parseAgentMarkdown } from "../src/index.js";
import { echo, secret } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-agents-md-"));
});
afterEach(() => cleanup());

const reviewer = `---
description: Reviews a change and lists problems
tools: echo
model: fast
limits:
  maxModelRequests: 4
inherit_hooks: false
---
You review code. Be brief.
`;

describe("subagents declared in markdown", () => {
  it("loads a folder of definitions and runs one", async () => {
    const agentsDir = join(dir, ".bridle", "agents");
    await mkdir(agentsDir, { recursive: true });
    await writeFile(join(agentsDir, "reviewer.md"), reviewer);
    await writeFile(join(agentsDir, "notes.txt"), "not a definition");
    const definitions = await loadAgentDefinitions(agentsDir);
    expect(definitions).toEqual([
      {
        name: "reviewer",
        description: "Reviews a change and lists problems",
        tools: ["echo"],
        model: "fast",
        limits: { maxModelRequests: 4 },
        inheritHooks: false,
        system: "You review code. Be brief.",
      },
    ]);
    const fast = new ScriptedModel([{ text: "looks fine" }]);
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "agent_spawn", arguments: { agent_id: "reviewer", task: "review" } }] },
      { text: "ok" },
    ]);
    const parent = { model: parentModel, tools: [echo, secret] };
    const agents = new Agents({ parent, agents: definitions, models: { fast } });
    const result = await new Harness({
      ...parent,
      tools: [echo, secret, ...agents.tools],
      workspace: dir,
    }).run({
      prompt: "go",
    });
    expect(result.stopReason).toBe("completed");
    expect(fast.requests[0]?.system).toBe("You review code. Be brief.");
    expect(fast.requests[0]?.tools.map((t) => t.name)).toEqual(["echo"]);
    // The model is told which subagents exist.
    const spawn = parentModel.requests[0]?.tools.find((t) => t.name === "agent_spawn");
    expect(spawn?.description).toContain("reviewer: Reviews a change");
  });

  it("gives a missing folder no definitions", async () => {
    expect(await loadAgentDefinitions(join(dir, "nowhere"))).toEqual([]);
  });

  it.each([
    ["no front matter", "just text", /no YAML front matter/],
    ["bad YAML", "---\ndescription: [unclosed\n---\nbody", /not valid YAML/],
    ["a list", "---\n- a\n- b\n---\n", /mapping/],
    ["unknown key", "---\ndescription: d\ncolour: red\n---\n", /unknown front matter key "colour"/],
    ["no description", "---\nname: x\n---\nbody", /description/],
    ["bad name", "---\nname: has spaces\ndescription: d\n---\n", /name/],
    ["bad limits", "---\ndescription: d\nlimits:\n  maxModelRequests: -1\n---\n", /invalid limits/],
  ])("refuses %s with a message naming the file", (_what, text, message) => {
    expect(() => parseAgentMarkdown(text, "agents/x.md")).toThrow(message);
    expect(() => parseAgentMarkdown(text, "agents/x.md")).toThrow(/agents\/x\.md/);
  });

  it("takes tools as a YAML list too", () => {
    const definition = parseAgentMarkdown("---\nname: r\ndescription: d\ntools: [read_file, grep]\n---\n");
    expect(definition.tools).toEqual(["read_file", "grep"]);
    expect(definition.system).toBeUndefined();
  });
});
