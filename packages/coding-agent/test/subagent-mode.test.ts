// A subagent works under its parent's mode: in ask mode its own writes ask the person too, and in plan
// mode no subagent starts. The subagent shares the parent's model here (a scripted one), so its requests
// are answered from the same script, in the order they are made.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ApprovalRequest } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CodingAgentSettings, createCodingAgent } from "../src/index.js";

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-subagent-mode-"));
  await writeFile(join(dir, "notes.txt"), "hello\n");
  spawnSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
});
afterEach(() => cleanup());

const settings = (over: Partial<CodingAgentSettings>): CodingAgentSettings => ({
  provider: "openai",
  model: "gpt-5-mini",
  cwd: dir,
  store: "jsonl",
  storeDir: join(dir, ".store"),
  dataDir: join(dir, ".data"),
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
  ...over,
});

/** The parent finds and spawns the helper, which writes one file; then both finish. */
const script = () =>
  new ScriptedModel([
    { toolCalls: [{ id: "t1", name: "tool_search", arguments: { query: "agent_spawn" } }] },
    {
      toolCalls: [
        { id: "s1", name: "agent_spawn", arguments: { agent_id: "helper", task: "write made.txt" } },
      ],
    },
    { toolCalls: [{ id: "c1", name: "write_file", arguments: { path: "made.txt", content: "x\n" } }] },
    { text: "Wrote it." },
    { text: "Done." },
  ]);

describe("a subagent's writes", () => {
  it("ask the person in ask mode, as the parent's would, and run only once approved", async () => {
    const asked: ApprovalRequest[] = [];
    const agent = await createCodingAgent(settings({ permissionMode: "ask" }), {
      mode: "run",
      model: script(),
      approver: {
        decide: async (request) => {
          asked.push(request);
          return request.toolCall.name === "write_file"
            ? { approved: false, reason: "not now" }
            : { approved: true };
        },
      },
    });
    try {
      const result = await agent.harness.run({ prompt: "have the helper write made.txt" });
      expect(result.stopReason).toBe("completed");
      expect(asked.map((r) => r.toolCall.name)).toContain("write_file");
      expect(existsSync(join(dir, "made.txt"))).toBe(false);
      expect(JSON.stringify(result.messages)).toContain("Done.");
    } finally {
      await agent.close();
    }
  });

  it("ask the person once the session is switched to ask mode mid-session (the mode key, /mode)", async () => {
    const asked: ApprovalRequest[] = [];
    const agent = await createCodingAgent(settings({ permissionMode: "workspace" }), {
      mode: "interactive",
      model: script(),
      switchModes: true,
      approver: {
        decide: async (request) => {
          asked.push(request);
          return request.toolCall.name === "write_file"
            ? { approved: false, reason: "not now" }
            : { approved: true };
        },
      },
    });
    try {
      agent.modes.set("ask");
      const result = await agent.harness.run({ prompt: "have the helper write made.txt" });
      expect(result.stopReason).toBe("completed");
      expect(asked.map((r) => r.toolCall.name)).toContain("write_file");
      expect(existsSync(join(dir, "made.txt"))).toBe(false);
    } finally {
      await agent.close();
    }
  });

  it("cannot be started in plan mode: agent_spawn is refused there, and nothing asks", async () => {
    const asked: ApprovalRequest[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ id: "t1", name: "tool_search", arguments: { query: "agent_spawn" } }] },
      {
        toolCalls: [
          { id: "s1", name: "agent_spawn", arguments: { agent_id: "helper", task: "write made.txt" } },
        ],
      },
      { text: "Done." },
    ]);
    const agent = await createCodingAgent(settings({}), {
      mode: "interactive",
      model,
      startMode: "plan",
      approver: {
        decide: async (request) => {
          asked.push(request);
          return { approved: true };
        },
      },
    });
    try {
      const result = await agent.harness.run({ prompt: "have the helper write made.txt" });
      expect(result.stopReason).toBe("completed");
      expect(JSON.stringify(model.requests[2]?.messages)).toMatch(
        /agent_spawn is not available in plan mode/,
      );
      expect(existsSync(join(dir, "made.txt"))).toBe(false);
      expect(asked).toEqual([]);
    } finally {
      await agent.close();
    }
  });
});
