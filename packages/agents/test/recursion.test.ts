import { type AnyTool, defineTool, Harness, type Message, type Model, type ModelEvent } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agents, isSpawning, type RunTasksFact } from "../src/index.js";
import { echo, lastToolJson, sleeper } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-agents-depth-"));
});
afterEach(() => cleanup());

const spawnCall = (name: string, task: string, agent = "worker") => ({
  toolCalls: [{ name, arguments: { agent_id: agent, task } }],
});

/** A turn that depends on whether this run has seen a tool result yet. */
const firstTurn = (messages: readonly Message[]) => !messages.some((m) => m.role === "tool");

/** Every way an application might copy or wrap the spawn tool under another name. */
function disguises(spawn: AnyTool): Record<string, AnyTool> {
  return {
    spread: { ...spawn, name: "delegate" },
    "shared execute": {
      name: "delegate",
      description: spawn.description,
      inputSchema: spawn.inputSchema,
      execute: spawn.execute,
    },
    wrapped: defineTool({
      name: "delegate",
      description: "Hand work to a helper",
      inputSchema: spawn.inputSchema,
      execute: (args, ctx) => spawn.execute(args, ctx),
    }),
    "bound execute": { ...spawn, name: "delegate", execute: spawn.execute.bind(spawn) },
  };
}

describe("recursion guard", () => {
  // The disguised copies are built from a first Agents' spawn tool and handed to the parent as an ordinary
  // tool, so a child inherits whatever the static filter does not recognise.
  for (const kind of ["spread", "shared execute", "wrapped", "bound execute"]) {
    it(`a ${kind} copy of agent_spawn inside a subagent cannot spawn when recursion is off`, async () => {
      const grandchild = new ScriptedModel([{ text: "grandchild ran" }]);
      const source = new Agents({
        parent: { model: grandchild, tools: [echo] },
        agents: [{ name: "worker", description: "works", model: grandchild }],
      });
      const disguised = disguises(source.tools[0] as AnyTool)[kind] as AnyTool;
      const child = new ScriptedModel((ctx) =>
        firstTurn(ctx.messages)
          ? ctx.tools.some((tool) => tool.name === "delegate")
            ? spawnCall("delegate", "recurse")
            : { text: "no delegate tool" }
          : { text: `child saw: ${lastToolText(ctx.messages)}` },
      );
      const parentModel = new ScriptedModel([spawnCall("agent_spawn", "go deeper"), { text: "done" }]);
      const parent = { model: parentModel, tools: [echo, disguised] };
      const agents = new Agents({ parent, agents: [{ name: "worker", description: "works", model: child }] });
      const harness = new Harness({ ...parent, tools: [...parent.tools, ...agents.tools], workspace: dir });
      const result = await harness.run({ prompt: "delegate" });
      expect(result.stopReason).toBe("completed");
      expect(grandchild.calls).toBe(0);
      const answer = String(lastToolJson(result.messages).result);
      if (kind === "wrapped") {
        // Nothing about a fresh wrapper says what it calls: it reaches the child, and is refused at run time.
        expect(answer).toMatch(/child saw: .*Denied.*depth 1 cannot start subagents/s);
      } else {
        expect(isSpawning(disguised)).toBe(true);
        expect(answer).toBe("no delegate tool");
      }
      await Promise.all([agents.close(), source.close()]);
    });
  }

  it("maxDepth 2 lets a child spawn once; its child cannot", async () => {
    const deep = new ScriptedModel((ctx) =>
      firstTurn(ctx.messages) && ctx.tools.some((t) => t.name === "agent_spawn")
        ? spawnCall("agent_spawn", "too deep")
        : { text: `deep tools: ${ctx.tools.map((t) => t.name).join(",") || "none"}` },
    );
    const child = new ScriptedModel((ctx) =>
      firstTurn(ctx.messages)
        ? spawnCall("agent_spawn", "one level down", "deep")
        : { text: lastToolText(ctx.messages) },
    );
    const parentModel = new ScriptedModel([spawnCall("agent_spawn", "start"), { text: "done" }]);
    const parent = { model: parentModel, tools: [echo] };
    const agents = new Agents({
      parent,
      maxDepth: 2,
      agents: [
        { name: "worker", description: "works", model: child },
        { name: "deep", description: "works deeper", model: deep },
      ],
    });
    const harness = new Harness({ ...parent, tools: [...parent.tools, ...agents.tools], workspace: dir });
    const result = await harness.run({ prompt: "go" });
    expect(result.stopReason).toBe("completed");
    // The child had the agent tools; the grandchild (depth 2) had only the plain ones.
    expect(child.requests[0]?.tools.map((t) => t.name)).toContain("agent_spawn");
    expect(String(lastToolJson(result.messages).result)).toContain("deep tools: echo");
    expect(deep.calls).toBe(1);
  });

  it("refuses a maxDepth below 1", () => {
    expect(
      () =>
        new Agents({
          parent: { model: new ScriptedModel([]) },
          maxDepth: 0,
          agents: [{ name: "w", description: "w" }],
        }),
    ).toThrow(/maxDepth/);
  });
});

describe("tasks at run end", () => {
  it("a background task is stopped when its run ends, makes no model request after, and is reported", async () => {
    const log: string[] = [];
    const sleep = sleeper(log);
    const child = new HangingModel();
    const parentModel = new ScriptedModel([
      {
        toolCalls: [
          { name: "agent_spawn", arguments: { agent_id: "worker", task: "forever", timeout_seconds: 0 } },
        ],
      },
      { text: "left it running" },
    ]);
    const parent = { model: parentModel, tools: [sleep] };
    const agents = new Agents({ parent, agents: [{ name: "worker", description: "w", model: child }] });
    const harness = new Harness({
      ...parent,
      tools: [sleep, ...agents.tools],
      hooks: agents.hooks,
      workspace: dir,
    });
    const stream = harness.stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    const fact = events.find((e) => e.type === "fact" && e.kind === "agents.tasks");
    const data = (fact as { data: RunTasksFact } | undefined)?.data;
    expect(data?.stopped).toMatchObject([{ agent_key: "worker-1", status: "cancelled" }]);
    expect(data?.leftRunning).toEqual([]);
    // The fact comes before the terminal event, and the task ended before it too.
    expect(events.indexOf(fact as never)).toBeLessThan(events.length - 1);
    expect(agents.tasks("running")).toEqual([]);
    const requests = child.requests;
    expect(child.aborted).toBe(requests);
    // Nothing later: the child's harness has ended, so no request can follow.
    await new Promise((resolve) => setImmediate(resolve));
    expect(child.requests).toBe(requests);
  });

  it("with atRunEnd keep, the task is left running and listed as such", async () => {
    const child = new HangingModel();
    const parentModel = new ScriptedModel([
      {
        toolCalls: [
          { name: "agent_spawn", arguments: { agent_id: "worker", task: "forever", timeout_seconds: 0 } },
        ],
      },
      { text: "kept" },
    ]);
    const parent = { model: parentModel, tools: [] };
    const agents = new Agents({
      parent,
      atRunEnd: "keep",
      agents: [{ name: "worker", description: "w", model: child }],
    });
    const harness = new Harness({ ...parent, tools: agents.tools, hooks: agents.hooks, workspace: dir });
    const stream = harness.stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const fact = events.find((e) => e.type === "fact" && e.kind === "agents.tasks");
    expect((fact as { data: RunTasksFact }).data.leftRunning).toMatchObject([{ status: "running" }]);
    expect(agents.tasks("running")).toHaveLength(1);
    await agents.close();
    expect(agents.tasks("cancelled")).toHaveLength(1);
  });
});

function lastToolText(messages: readonly { role: string; content?: unknown }[]): string {
  const last = [...messages].reverse().find((m) => m.role === "tool") as
    | { content: { type: string; text?: string }[]; errorKind?: string }
    | undefined;
  if (!last) return "no tool result";
  return `${last.errorKind ?? ""} ${last.content.map((p) => p.text ?? "").join("")}`;
}

/** A model whose every request waits until it is aborted. */
class HangingModel implements Model {
  readonly provider = "test";
  readonly model = "hanging";
  requests = 0;
  aborted = 0;
  async *stream(request: Parameters<Model["stream"]>[0]): AsyncIterable<ModelEvent> {
    this.requests++;
    await new Promise<void>((resolve) => {
      if (request.signal.aborted) resolve();
      request.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    this.aborted++;
    yield {
      type: "error",
      error: { code: "aborted", message: "aborted", retryable: false },
    } as ModelEvent;
  }
}
