// Every writer says why it asks: the recipe's agent in ask mode (and skill_run under the command policy), a
// scripted model calling each edit format's tools and a skill script, and an approver that records what it
// was asked and refuses, as a person would who reads the reason first.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ApprovalRequest, Message, ToolResultMessage } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type CodingAgentSettings, createCodingAgent } from "../src/index.js";

let dir: string;
let work: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-approval-why-"));
  work = join(dir, "work");
  await mkdir(work);
  await writeFile(join(work, "notes.txt"), "one\ntwo\n");
  const skill = join(dir, "skills", "marker");
  await mkdir(join(skill, "scripts"), { recursive: true });
  await writeFile(
    join(skill, "SKILL.md"),
    "---\nname: marker\ndescription: Marks a file as checked.\n---\nRun scripts/mark.sh FILE.\n",
  );
  await writeFile(join(skill, "scripts", "mark.sh"), 'printf "checked\\n" > "$1"\n');
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
  permissionMode: "ask",
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
  skills: join(dir, "skills"),
  ...over,
});

type Call = { id: string; name: string; arguments: Record<string, unknown> };

/** The calls run once, every approval refused; what the approver was asked, and what the model was told. */
async function asked(
  chosen: CodingAgentSettings,
  calls: Call[],
  options: { readonly startMode?: "ask"; readonly find?: { tool: string; query: string } } = {},
): Promise<{ requests: ApprovalRequest[]; told: Map<string, string> }> {
  const requests: ApprovalRequest[] = [];
  const { startMode, find } = options;
  // A deferred tool (Claude's MultiEdit) is found with the search tool first, as a model finds it.
  const search = find
    ? [{ toolCalls: [{ id: "find", name: find.tool, arguments: { query: find.query } }] }]
    : [];
  const model = new ScriptedModel([...search, { toolCalls: calls }, { text: "Done." }]);
  const agent = await createCodingAgent(chosen, {
    mode: "run",
    model,
    ...(startMode ? { startMode } : {}),
    approver: {
      decide: async (request) => {
        requests.push(request);
        return { approved: false, reason: "the user refused" };
      },
    },
  });
  try {
    const result = await agent.harness.run({ prompt: "go" });
    expect(result.stopReason).toBe("completed");
    return { requests, told: toldOf(result.messages) };
  } finally {
    await agent.close();
  }
}

function toldOf(messages: readonly Message[]): Map<string, string> {
  const told = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "tool") continue;
    const result = message as ToolResultMessage;
    told.set(
      result.toolCallId,
      result.content.map((part) => (part.type === "text" ? part.text : "")).join(""),
    );
  }
  return told;
}

const why = (requests: readonly ApprovalRequest[]) =>
  Object.fromEntries(requests.map((request) => [request.toolCall.id, request.scope?.why]));

const ASK = "(ask mode asks before every call that may write)";

it("write_file and edit_file say which file they write, then ask mode's rule, and the model hears it on a refusal", async () => {
  const { requests, told } = await asked(settings(), [
    { id: "w", name: "write_file", arguments: { path: "src/a.ts", content: "x\n" } },
    { id: "e", name: "edit_file", arguments: { path: "notes.txt", old_string: "two", new_string: "2" } },
  ]);
  expect(why(requests)).toEqual({ w: `writes src/a.ts ${ASK}`, e: `edits notes.txt ${ASK}` });
  // "Always" stays per tool in ask mode, named as the model called it.
  expect(requests.map((request) => request.scope?.always?.label)).toEqual(["write_file", "edit_file"]);
  expect(told.get("w")).toContain(`the user refused (it asked because writes src/a.ts ${ASK})`);
  expect(existsSync(join(work, "src", "a.ts"))).toBe(false);
  expect(await readFile(join(work, "notes.txt"), "utf8")).toBe("one\ntwo\n");
});

it("apply_patch names what its patch adds, updates and deletes, and counts the rest", async () => {
  const patch = [
    "*** Begin Patch",
    "*** Add File: a.txt",
    "+a",
    "*** Update File: notes.txt",
    "@@",
    " one",
    "-two",
    "+2",
    "*** Delete File: old.txt",
    "*** Add File: b.txt",
    "+b",
    "*** Add File: c.txt",
    "+c",
    "*** End Patch",
  ].join("\n");
  const { requests } = await asked(settings({ editFormat: "apply_patch" }), [
    { id: "p", name: "apply_patch", arguments: { input: patch } },
    { id: "q", name: "apply_patch", arguments: { input: "not a patch" } },
  ]);
  expect(why(requests)).toEqual({
    p: `adds a.txt, updates notes.txt, deletes old.txt and 2 more files ${ASK}`,
    q: `applies a patch that does not parse (it writes nothing) ${ASK}`,
  });
});

it("hashline's edit_file and Claude's Write and MultiEdit say the file too, under their own names", async () => {
  const hashline = await asked(settings({ editFormat: "hashline" }), [
    {
      id: "h",
      name: "edit_file",
      arguments: { path: "notes.txt", edits: [{ op: "delete_line", tag: "2:zz" }] },
    },
  ]);
  expect(why(hashline.requests)).toEqual({ h: `edits notes.txt ${ASK}` });

  const claude = await asked(
    settings({ profile: "anthropic", editFormat: "replace", skills: undefined }),
    [
      { id: "w", name: "Write", arguments: { file_path: "b.txt", content: "b\n" } },
      {
        id: "m",
        name: "MultiEdit",
        arguments: { file_path: "notes.txt", edits: [{ old_string: "one", new_string: "1" }] },
      },
    ],
    { find: { tool: "ToolSearch", query: "MultiEdit" } },
  );
  expect(why(claude.requests)).toEqual({ w: `writes b.txt ${ASK}`, m: `edits notes.txt ${ASK}` });
  expect(claude.requests.map((request) => request.scope?.always?.label)).toEqual(["Write", "MultiEdit"]);
});

it("skill_run gives the command policy's reason, its script named in its skill, or the script when only the mode asks", async () => {
  const run: Call = {
    id: "s",
    name: "skill_run",
    arguments: { skill: "marker", script: "scripts/mark.sh", args: ["notes.txt"] },
  };
  // No sandbox: the command policy is the boundary, and it cannot see into a script, so it asks.
  const inWorkspace = await asked(settings({ permissionMode: "workspace" }), [run]);
  const policy = why(inWorkspace.requests).s ?? "";
  expect(policy).toMatch(/^bash marker\/scripts\/mark\.sh notes\.txt: .*marker\/scripts\/mark\.sh/);
  expect(policy).not.toContain(dir);
  expect(policy).not.toContain("ask mode");

  // In the sandbox the policy lets it run: in ask mode only the mode asks, and says which script.
  const inAsk = await asked(settings({ permissionMode: "workspace", sandbox: "bwrap" }), [run], {
    startMode: "ask",
  });
  expect(why(inAsk.requests)).toEqual({ s: `runs the skill script marker/scripts/mark.sh ${ASK}` });
  expect(await readFile(join(work, "notes.txt"), "utf8")).toBe("one\ntwo\n");
});

it("in workspace mode the file tools write unasked", async () => {
  const { requests } = await asked(settings({ permissionMode: "workspace" }), [
    { id: "w", name: "write_file", arguments: { path: "new.txt", content: "n\n" } },
  ]);
  expect(requests).toEqual([]);
  expect(await readFile(join(work, "new.txt"), "utf8")).toBe("n\n");
});

it("run_check gives the command policy's reason for its check's command", async () => {
  await writeFile(join(work, "Makefile"), "test:\n\tprintf 'snapshot\\n' > snap.txt\n");
  // No sandbox: the policy cannot see what a project's make target runs, so it asks.
  const { requests, told } = await asked(
    settings({
      permissionMode: "workspace",
      coding: { enabled: true, repairAttempts: 0 },
      skills: undefined,
    }),
    [{ id: "c", name: "run_check", arguments: { kind: "test" } }],
  );
  const reason = why(requests).c ?? "";
  expect(reason).toMatch(/^make test: /);
  expect(told.get("c")).toContain(`(it asked because ${reason})`);
  expect(existsSync(join(work, "snap.txt"))).toBe(false);
});
