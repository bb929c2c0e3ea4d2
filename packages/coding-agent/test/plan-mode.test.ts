// Plan mode, the mode switch and the ask-the-user tool as an embedder meets them: real tools in a temp git
// repository, a scripted model, and a questions answerer standing in for the person.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type ApprovalRequest,
  type Message,
  type RunEvent,
  sessionSink,
  type ToolResultMessage,
} from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CodingAgentError,
  type CodingAgentSettings,
  createCodingAgent,
  type UserAnswer,
  type UserQuestion,
  type UserQuestions,
} from "../src/index.js";

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-plan-"));
  await writeFile(join(dir, "notes.txt"), "hello\n");
  spawnSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
});
afterEach(() => cleanup());

const settings = (over: Partial<CodingAgentSettings> = {}): CodingAgentSettings => ({
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

/** A person who answers from a list, and remembers what they were asked. */
class Person implements UserQuestions {
  readonly asked: UserQuestion[][] = [];
  readonly #answers: (readonly UserAnswer[] | undefined)[];
  constructor(...answers: (readonly UserAnswer[] | undefined)[]) {
    this.#answers = answers;
  }
  async ask(questions: readonly UserQuestion[]): Promise<readonly UserAnswer[] | undefined> {
    this.asked.push([...questions]);
    return this.#answers.shift();
  }
}

const results = (messages: readonly Message[]) =>
  messages.filter((m): m is ToolResultMessage => m.role === "tool");
const text = (m: ToolResultMessage) =>
  typeof m.content === "string"
    ? m.content
    : m.content.map((p) => (p.type === "text" ? p.text : "")).join("");

describe("plan mode", () => {
  it("refuses writes while planning, runs read-only commands, and switches to the working mode once the plan is accepted", async () => {
    const approvals: ApprovalRequest[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "w1", name: "write_file", arguments: { path: "plan.txt", content: "x\n" } },
          { id: "b1", name: "bash", arguments: { command: "touch made.txt" } },
          { id: "b2", name: "bash", arguments: { command: "cat notes.txt" } },
        ],
      },
      { toolCalls: [{ id: "p1", name: "exit_plan_mode", arguments: { plan: "1. write plan.txt" } }] },
      { toolCalls: [{ id: "w2", name: "write_file", arguments: { path: "plan.txt", content: "done\n" } }] },
      { text: "Done." },
    ]);
    const person = new Person([{ selected: ["Yes"] }]);
    const agent = await createCodingAgent(settings(), {
      mode: "interactive",
      model,
      startMode: "plan",
      questions: person,
      approver: {
        decide: async (request) => {
          approvals.push(request);
          return { approved: true };
        },
      },
    });
    try {
      expect(agent.modes.mode).toBe("plan");
      const session = await agent.store.createSession();
      const events: RunEvent[] = [];
      const stream = agent.harness.stream({
        prompt: "add plan.txt",
        sessionId: session.id,
        sink: sessionSink(agent.store, session.id),
      });
      for await (const event of stream) events.push(event);
      const result = await stream.result;
      expect(result.stopReason).toBe("completed");
      const [write, touch, cat, exit, write2] = results(result.messages);
      expect(write?.isError).toBe(true);
      expect(text(write as ToolResultMessage)).toMatch(/not available in plan mode.*exit_plan_mode/);
      expect(touch?.isError).toBe(true);
      expect(text(touch as ToolResultMessage)).toMatch(/read-only/);
      expect(existsSync(join(dir, "made.txt"))).toBe(false);
      expect(text(cat as ToolResultMessage)).toContain("hello");
      expect(text(exit as ToolResultMessage)).toMatch(/accepted the plan.*workspace mode/);
      expect(person.asked[0]?.[0]?.detail).toBe("1. write plan.txt");
      expect(write2?.isError).toBeFalsy();
      expect(await readFile(join(dir, "plan.txt"), "utf8")).toBe("done\n");
      expect(agent.modes.mode).toBe("workspace");
      // No write was put to the approver while planning: it was refused, not asked about.
      expect(approvals).toEqual([]);
      // The tool list the model saw never changed: the request prefix survives the switch.
      const toolLists = model.requests.map((r) => JSON.stringify(r.tools));
      expect(new Set(toolLists).size).toBe(1);
      expect(JSON.stringify(model.requests[0]?.messages)).toContain("Plan mode:");
      // The session records the mode each run started in.
      const facts = [];
      for await (const record of agent.store.read(session.id))
        if (record.event.type === "fact" && record.event.kind === "session.mode")
          facts.push(record.event.data);
      expect(facts).toEqual([{ mode: "plan", working: "workspace" }]);
    } finally {
      await agent.close();
    }
  });

  it("keeps planning with the person's words when the plan is not accepted", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: "p1", name: "exit_plan_mode", arguments: { plan: "rewrite everything" } }] },
      { text: "Revised." },
    ]);
    const agent = await createCodingAgent(settings(), {
      mode: "interactive",
      model,
      startMode: "plan",
      questions: new Person([{ selected: [], other: "only touch notes.txt" }]),
    });
    try {
      const result = await agent.harness.run({ prompt: "plan it" });
      const [exit] = results(result.messages);
      expect(text(exit as ToolResultMessage)).toMatch(
        /did not accept the plan and said: only touch notes.txt/,
      );
      expect(agent.modes.mode).toBe("plan");
    } finally {
      await agent.close();
    }
  });

  it("says a plan cannot be accepted where nobody can answer", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: "p1", name: "exit_plan_mode", arguments: { plan: "a plan" } }] },
      { text: "Here is the plan." },
    ]);
    const agent = await createCodingAgent(settings(), { mode: "run", model, startMode: "plan" });
    try {
      const result = await agent.harness.run({ prompt: "plan it" });
      const [exit] = results(result.messages);
      expect(exit?.isError).toBe(true);
      expect(text(exit as ToolResultMessage)).toMatch(/nobody can accept a plan here.*final answer/);
      expect(agent.modes.mode).toBe("plan");
    } finally {
      await agent.close();
    }
  });

  it("switches among the modes the session can be in, and says why not for the others", async () => {
    const agent = await createCodingAgent(settings(), {
      mode: "interactive",
      model: new ScriptedModel([]),
      switchModes: true,
    });
    try {
      expect(agent.modes.available()).toEqual(["plan", "workspace", "ask"]);
      expect(agent.modes.next()).toBe("ask");
      agent.modes.set("ask");
      expect(agent.modes.next()).toBe("plan");
      agent.modes.set("plan");
      expect(agent.modes.working).toBe("ask");
      expect(() => agent.modes.set("full-access")).toThrow(CodingAgentError);
      expect(() => agent.modes.set("full-access")).toThrow(/--permission-mode full-access/);
      // Offered where a front door can switch modes, under the profile's name.
      expect((agent.options.tools ?? []).map((t) => t.name)).toContain("exit_plan_mode");
    } finally {
      await agent.close();
    }
  });

  it("asks before every write once switched to ask mode, and stops asking when switched back", async () => {
    const asked: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "a.txt", content: "a\n" } }] },
      { text: "ok" },
      { toolCalls: [{ id: "w2", name: "write_file", arguments: { path: "b.txt", content: "b\n" } }] },
      { text: "ok" },
    ]);
    const agent = await createCodingAgent(settings(), {
      mode: "interactive",
      model,
      switchModes: true,
      approver: {
        decide: async (r) => {
          asked.push(r.toolCall.name);
          return { approved: false, reason: "no" };
        },
      },
    });
    try {
      agent.modes.set("ask");
      const first = await agent.harness.run({ prompt: "write a" });
      expect(asked).toEqual(["write_file"]);
      expect(existsSync(join(dir, "a.txt"))).toBe(false);
      agent.modes.set("workspace");
      await agent.harness.run({ prompt: "write b", history: first.messages });
      expect(asked).toEqual(["write_file"]);
      expect(await readFile(join(dir, "b.txt"), "utf8")).toBe("b\n");
    } finally {
      await agent.close();
    }
  });
});

describe("the ask-the-user tool", () => {
  it("asks the person request_user_input's questions and gives the model their answers by id", async () => {
    const person = new Person([{ selected: ["Postgres"] }, { selected: [], other: "both, please" }]);
    const model = new ScriptedModel([
      { toolCalls: [{ id: "s1", name: "tool_search", arguments: { query: "request_user_input" } }] },
      {
        toolCalls: [
          {
            id: "q1",
            name: "request_user_input",
            arguments: {
              questions: [
                {
                  id: "store",
                  header: "Store",
                  question: "Which store?",
                  options: [
                    { label: "Postgres", description: "a server" },
                    { label: "SQLite", description: "a file" },
                  ],
                },
                {
                  id: "tests",
                  header: "Tests",
                  question: "Unit or e2e?",
                  options: [
                    { label: "Unit", description: "fast" },
                    { label: "E2E", description: "real" },
                  ],
                },
              ],
            },
          },
        ],
      },
      { text: "Thanks." },
    ]);
    const agent = await createCodingAgent(settings({ profile: "openai" }), {
      mode: "interactive",
      model,
      questions: person,
    });
    try {
      const result = await agent.harness.run({ prompt: "set it up" });
      const asked = results(result.messages).find((m) => m.toolName === "request_user_input");
      expect(JSON.parse(text(asked as ToolResultMessage))).toEqual({
        answers: { store: { answers: ["Postgres"] }, tests: { answers: ["user_note: both, please"] } },
      });
      expect(person.asked[0]?.map((q) => q.question)).toEqual(["Which store?", "Unit or e2e?"]);
    } finally {
      await agent.close();
    }
  });

  it("is AskUserQuestion in Claude's shape, bounded, and refused with a way forward where nobody can answer", async () => {
    const question = (options: number) => ({
      question: "Which?",
      header: "Pick",
      multiSelect: true,
      options: Array.from({ length: options }, (_, i) => ({ label: `o${i}`, description: "d" })),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: "s1", name: "ToolSearch", arguments: { query: "AskUserQuestion" } }] },
      { toolCalls: [{ id: "q1", name: "AskUserQuestion", arguments: { questions: [question(5)] } }] },
      { toolCalls: [{ id: "q2", name: "AskUserQuestion", arguments: { questions: [question(2)] } }] },
      { text: "I assumed o0." },
    ]);
    const agent = await createCodingAgent(settings({ profile: "anthropic" }), { mode: "run", model });
    try {
      const result = await agent.harness.run({ prompt: "pick" });
      const [, tooMany, refused] = results(result.messages);
      expect(tooMany?.isError).toBe(true);
      expect(tooMany?.errorKind).toBe("InvalidInput");
      expect(refused?.isError).toBe(true);
      expect(text(refused as ToolResultMessage)).toMatch(/nobody can answer.*own judgement/);
      expect(result.finalText).toBe("I assumed o0.");
    } finally {
      await agent.close();
    }
  });
});
