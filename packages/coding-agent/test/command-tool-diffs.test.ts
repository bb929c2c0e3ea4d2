// The tools besides bash that run a command (skill_run, run_check) show what it changed as bash does: the
// recipe's agent, a scripted model, real scripts writing real files in a temp workspace.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FileDiff, RunEvent } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type CodingAgentSettings, createCodingAgent } from "../src/index.js";

let dir: string;
let work: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-command-tool-diffs-"));
  work = join(dir, "work");
  await mkdir(work);
  await writeFile(join(work, "notes.txt"), "one\ntwo\n");
});
afterEach(() => cleanup());

const settings = (over: Partial<CodingAgentSettings> = {}): CodingAgentSettings => ({
  provider: "openai",
  model: "gpt-5-mini",
  cwd: work,
  store: "jsonl",
  storeDir: join(dir, "store"),
  dataDir: join(dir, "data"),
  maxTurns: 10,
  sandbox: "off",
  permissionMode: "workspace",
  mcpStartup: "wait",
  compaction: false,
  instructions: false,
  subagentDepth: 1,
  keepTasks: false,
  memory: false,
  agentFiles: [],
  profile: "generic",
  editFormat: "replace",
  coding: { enabled: false, repairAttempts: 0 },
  ...over,
});

interface Shown {
  readonly diffs?: readonly FileDiff[];
  readonly changed_files?: { readonly count: number };
}

/** Runs the scripted calls with every approval granted; the completed calls' details by call id. */
async function detailsOf(
  chosen: CodingAgentSettings,
  calls: { id: string; name: string; arguments: Record<string, unknown> }[],
): Promise<Map<string, Shown>> {
  const model = new ScriptedModel([{ toolCalls: calls }, { text: "Done." }]);
  const agent = await createCodingAgent(chosen, {
    mode: "run",
    model,
    approver: { decide: async () => ({ approved: true }) },
  });
  try {
    const events: RunEvent[] = [];
    const stream = agent.harness.stream({ prompt: "go" });
    for await (const event of stream) events.push(event);
    expect((await stream.result).stopReason).toBe("completed");
    const shown = new Map<string, Shown>();
    for (const event of events) {
      if (event.type === "tool_call_completed")
        shown.set(event.result.toolCallId, (event.result.details ?? {}) as Shown);
    }
    return shown;
  } finally {
    await agent.close();
  }
}

it("skill_run's result shows the lines its script changed", async () => {
  const skill = join(dir, "skills", "marker");
  await mkdir(join(skill, "scripts"), { recursive: true });
  await writeFile(
    join(skill, "SKILL.md"),
    "---\nname: marker\ndescription: Marks a file as checked.\n---\nRun scripts/mark.sh FILE.\n",
  );
  await writeFile(join(skill, "scripts", "mark.sh"), 'printf "one\\nchecked\\n" > "$1"\n');
  const shown = await detailsOf(settings({ skills: join(dir, "skills") }), [
    {
      id: "s1",
      name: "skill_run",
      arguments: { skill: "marker", script: "scripts/mark.sh", args: ["notes.txt"] },
    },
  ]);
  expect(await readFile(join(work, "notes.txt"), "utf8")).toBe("one\nchecked\n");
  const details = shown.get("s1");
  expect(details?.changed_files?.count).toBe(1);
  expect(details?.diffs).toEqual([
    {
      path: "notes.txt",
      change: "update",
      added: 1,
      removed: 1,
      hunks: [{ oldStart: 2, newStart: 2, removed: ["two"], added: ["checked"] }],
      omittedLines: 0,
    },
  ]);
});

it("run_check's result shows the files the check wrote, and a check that writes nothing shows none", async () => {
  await writeFile(join(work, "Makefile"), "test:\n\tprintf 'snapshot\\n' > snap.txt\nlint:\n\ttrue\n");
  const shown = await detailsOf(settings({ coding: { enabled: true, repairAttempts: 1 } }), [
    { id: "c1", name: "run_check", arguments: { kind: "test" } },
    { id: "c2", name: "run_check", arguments: { kind: "lint" } },
  ]);
  expect(await readFile(join(work, "snap.txt"), "utf8")).toBe("snapshot\n");
  const test = shown.get("c1");
  expect((test as { status?: string } | undefined)?.status).toBe("passed");
  expect(test?.changed_files?.count).toBe(1);
  expect(test?.diffs?.map(({ path, change, hunks }) => ({ path, change, hunks }))).toEqual([
    {
      path: "snap.txt",
      change: "add",
      hunks: [{ oldStart: 1, newStart: 1, removed: [], added: ["snapshot"] }],
    },
  ]);
  // The lint check ran after the test in the same batch: it did not take the test's file for its own.
  const lint = shown.get("c2");
  expect((lint as { status?: string } | undefined)?.status).toBe("passed");
  expect(lint?.diffs).toBeUndefined();
});
