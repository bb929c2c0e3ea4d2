import { existsSync } from "node:fs";
import { join } from "node:path";
import { defineTool, Harness, type Message, type ToolResultMessage, textOf } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { createShellTools } from "@bridle/tools-shell";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSkillTools, SkillRegistry } from "../src/index.js";
import { writeSkill } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-skills-harness-"));
  const skills = join(dir, "skills");
  await writeSkill(
    skills,
    "reviewer",
    "name: reviewer\ndescription: Reviews code without changing it.\nallowed-tools: Read Bash(echo:*)",
  );
  await writeSkill(skills, "free", "name: free\ndescription: Restricts nothing.");
});
afterEach(() => cleanup());

// Stand-ins for @bridle/tools-fs (not a dependency of this package): they only record that they ran.
const ran: string[] = [];
const fileTool = (name: string) =>
  defineTool({
    name,
    description: name,
    inputSchema: z.object({ path: z.string() }),
    execute: async (args) => {
      ran.push(`${name} ${args.path}`);
      return { content: "ok" };
    },
  });

function result(messages: readonly Message[], id: string): ToolResultMessage {
  const found = messages.find((m): m is ToolResultMessage => m.role === "tool" && m.toolCallId === id);
  if (!found) throw new Error(`no result for ${id}`);
  return found;
}

describe("allowed-tools in a run", () => {
  it("denies tools outside the skill's allowed-tools once skill_read has put it in use, until the run ends", async () => {
    ran.length = 0;
    const registry = await SkillRegistry.load({ folders: [join(dir, "skills")] });
    // No sandbox: the strict policy asks for `touch x`; the rule lets it reach the skill's allowed-tools hook.
    const shell = await createShellTools({ policy: { rules: [{ decision: "allow", argv: ["touch"] }] } });
    const skills = await createSkillTools(registry, { shell: shell.environment });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_file", id: "before", arguments: { path: "a.txt" } }] },
      { toolCalls: [{ name: "skill_read", id: "activate", arguments: { skill: "reviewer" } }] },
      {
        toolCalls: [
          { name: "write_file", id: "write", arguments: { path: "b.txt" } },
          { name: "read_file", id: "read", arguments: { path: "a.txt" } },
          { name: "list_dir", id: "list", arguments: { path: "." } },
          { name: "bash", id: "echo", arguments: { command: "echo hi" } },
          { name: "bash", id: "chained", arguments: { command: "echo hi; touch x" } },
          { name: "bash", id: "other", arguments: { command: "ls" } },
        ],
      },
      { toolCalls: [{ name: "skill_read", id: "second-skill", arguments: { skill: "free" } }] },
      { toolCalls: [{ name: "write_file", id: "still", arguments: { path: "c.txt" } }] },
      { text: "done" },
      { toolCalls: [{ name: "write_file", id: "next-run", arguments: { path: "d.txt" } }] },
      { text: "done again" },
    ]);
    const harness = new Harness({
      model,
      workspace: dir,
      tools: [
        fileTool("read_file"),
        fileTool("write_file"),
        fileTool("list_dir"),
        ...shell.tools,
        ...skills.tools,
      ],
      hooks: [...shell.hooks, ...skills.hooks],
      system: registry.catalog(),
    });
    const first = await harness.run({ prompt: "review" });
    expect(first.stopReason).toBe("completed");
    const { messages } = first;
    expect(result(messages, "before").isError).toBe(false);
    expect(textOf(result(messages, "activate").content)).toMatch(
      /While this skill is in use, the only other tools allowed are: Read Bash\(echo:\*\)/,
    );
    expect(result(messages, "write").errorKind).toBe("Denied");
    expect(textOf(result(messages, "write").content)).toMatch(
      /the skill reviewer in use allows only these tools: Read Bash\(echo:\*\)/,
    );
    expect(result(messages, "read").isError).toBe(false);
    expect(result(messages, "list").isError).toBe(false);
    expect(JSON.parse(textOf(result(messages, "echo").content)).stdout).toBe("hi\n");
    expect(result(messages, "chained").errorKind).toBe("Denied");
    expect(textOf(result(messages, "chained").content)).toMatch(/allows bash only for: echo:\*/);
    expect(result(messages, "other").errorKind).toBe("Denied");
    // Reading a skill that restricts nothing does not lift the first one's restriction.
    expect(result(messages, "second-skill").isError).toBe(false);
    expect(result(messages, "still").errorKind).toBe("Denied");
    expect(ran).toEqual(["write_file a.txt", "read_file a.txt", "list_dir ."]);
    expect(skills.activations.active(first.runId)).toEqual([]);

    // A new run starts with no skill in use.
    const second = await harness.run({ prompt: "write" });
    expect(result(second.messages, "next-run").isError).toBe(false);
    expect(ran.at(-1)).toBe("write_file d.txt");
  });

  it("puts a skill in use through skill_run too, and the catalog reaches the model", async () => {
    ran.length = 0;
    const skillsDir = join(dir, "run-skills");
    await writeSkill(skillsDir, "lint", "name: lint\ndescription: Lints.\nallowed-tools: read_file", "x\n", {
      "scripts/check.sh": "echo checked\n",
    });
    const registry = await SkillRegistry.load({ folders: [skillsDir] });
    const skills = await createSkillTools(registry, { trustScripts: true });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "skill_run", id: "run", arguments: { skill: "lint", script: "scripts/check.sh" } },
        ],
      },
      { toolCalls: [{ name: "write_file", id: "write", arguments: { path: "x" } }] },
      { text: "done" },
    ]);
    const harness = new Harness({
      model,
      workspace: dir,
      tools: [fileTool("write_file"), ...skills.tools],
      hooks: skills.hooks,
      system: registry.catalog(),
    });
    const { messages } = await harness.run({ prompt: "lint" });
    expect(JSON.parse(textOf(result(messages, "run").content)).stdout).toBe("checked\n");
    expect(result(messages, "write").errorKind).toBe("Denied");
    expect(ran).toEqual([]);
    expect(model.requests[0]?.system).toContain("- lint: Lints.");
  });

  it("sends skill_run to the approver by default: with none, the call is refused and nothing runs", async () => {
    const skillsDir = join(dir, "run-skills");
    await writeSkill(skillsDir, "marker", "name: marker\ndescription: Leaves a file.", "x\n", {
      "scripts/mark.sh": "touch marked\n",
    });
    const registry = await SkillRegistry.load({ folders: [skillsDir] });
    const skills = await createSkillTools(registry);
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "skill_run", id: "run", arguments: { skill: "marker", script: "scripts/mark.sh" } },
        ],
      },
      { text: "done" },
    ]);
    const harness = new Harness({ model, workspace: dir, tools: skills.tools, hooks: skills.hooks });
    const { messages } = await harness.run({ prompt: "mark" });
    expect(result(messages, "run").errorKind).toBe("Denied");
    expect(existsSync(join(dir, "marked"))).toBe(false);
    const approving = new Harness({
      model: new ScriptedModel([
        {
          toolCalls: [
            { name: "skill_run", id: "run", arguments: { skill: "marker", script: "scripts/mark.sh" } },
          ],
        },
        { text: "done" },
      ]),
      workspace: dir,
      tools: skills.tools,
      hooks: skills.hooks,
      approver: { decide: async () => ({ approved: true }) },
    });
    const approved = await approving.run({ prompt: "mark" });
    expect(result(approved.messages, "run").isError).toBe(false);
    expect(existsSync(join(dir, "marked"))).toBe(true);
  });
});
