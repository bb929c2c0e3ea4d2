import { askApprover, defineTool, Harness, type RunEvent } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agents } from "../src/index.js";
import { childEvents, echo, lastToolJson, recordingHooks, secret, sleeper } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-agents-"));
});
afterEach(() => cleanup());

describe("agent_spawn", () => {
  it("runs a child with its own tools, system prompt and budget; the parent sees its events and hooks", async () => {
    // The child keeps calling echo: only its own limit of 3 model requests stops it.
    const child = new ScriptedModel(() => ({ toolCalls: [{ name: "echo", arguments: { text: "again" } }] }));
    const seen: string[] = [];
    const hooks = recordingHooks(seen);
    const parentModel = new ScriptedModel([
      {
        toolCalls: [
          { name: "agent_spawn", id: "spawn1", arguments: { agent_id: "worker", task: "loop forever" } },
        ],
      },
      { text: "the worker gave up" },
    ]);
    const parent = { model: parentModel, tools: [echo, secret], hooks, limits: { maxModelRequests: 10 } };
    const agents = new Agents({
      parent,
      agents: [
        {
          name: "worker",
          description: "Does work",
          system: "You are the worker.",
          tools: ["echo"],
          model: child,
          limits: { maxModelRequests: 3 },
        },
      ],
    });
    const harness = new Harness({ ...parent, tools: [...parent.tools, ...agents.tools], workspace: dir });
    const stream = harness.stream({ prompt: "delegate" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");

    // Own budget, own tools (the allowlist, never the agent tools), own system prompt.
    expect(child.calls).toBe(3);
    expect(child.requests[0]?.system).toBe("You are the worker.");
    expect(child.requests[0]?.tools.map((t) => t.name)).toEqual(["echo"]);
    const report = lastToolJson(result.messages);
    expect(report).toMatchObject({
      agent_key: "worker-1",
      status: "failed",
      stop_reason: "max_model_requests",
    });

    // The child's events are in the parent's stream, correlated with the spawning call.
    const carried = childEvents(events);
    expect(carried[0]?.type).toBe("run_started");
    expect(carried.at(-1)?.type).toBe("run_failed");
    for (const event of carried) {
      expect(event.parentRunId).toBe(result.runId);
      expect(event.parentToolCallId).toBe("spawn1");
      expect(event.agentName).toBe("worker");
      expect(event.runId).not.toBe(result.runId);
    }
    expect(carried.some((e) => e.type === "text_delta")).toBe(false);
    // The parent's transcript holds only its own turns.
    expect(result.messages.filter((m) => m.role === "assistant")).toHaveLength(2);

    // Subagent hooks fired in the parent; the inherited tool hook fired in the child for its calls.
    expect(seen).toContain("before_subagent_run:parent:worker");
    expect(seen).toContain("after_subagent_run:parent:worker:max_model_requests");
    expect(seen.filter((s) => s === "before_tool_call:worker:echo")).toHaveLength(3);
  });

  it("lets a before_subagent_run hook block the spawn", async () => {
    const child = new ScriptedModel([{ text: "never" }]);
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "agent_spawn", arguments: { agent_id: "worker", task: "x" } }] },
      { text: "ok" },
    ]);
    const hooks = [
      {
        event: "before_subagent_run" as const,
        handler: (ctx: { cancel(r: string): void }) => ctx.cancel("no delegation today"),
      },
    ];
    const parent = { model: parentModel, tools: [echo], hooks };
    const agents = new Agents({ parent, agents: [{ name: "worker", description: "w", model: child }] });
    const harness = new Harness({ ...parent, tools: [echo, ...agents.tools], workspace: dir });
    const result = await harness.run({ prompt: "go" });
    const blocked = result.messages.find((m) => m.role === "tool");
    expect(blocked?.role === "tool" && blocked.errorKind).toBe("Denied");
    expect(child.calls).toBe(0);
    expect(agents.agents()).toEqual([]);
  });

  it("aborting the parent run aborts the child and its tools", async () => {
    const log: string[] = [];
    const sleep = sleeper(log);
    const child = new ScriptedModel([
      { toolCalls: [{ name: "sleep", arguments: { ms: 10_000 } }] },
      { text: "woke" },
    ]);
    const parentModel = new ScriptedModel([
      {
        toolCalls: [
          { name: "agent_spawn", arguments: { agent_id: "sleeper", task: "nap", timeout_seconds: 600 } },
        ],
      },
      { text: "never" },
    ]);
    const parent = { model: parentModel, tools: [sleep] };
    const childRuns: RunEvent[] = [];
    const agents = new Agents({
      parent,
      agents: [{ name: "sleeper", description: "naps", model: child }],
      onEvent: (event) => childRuns.push(event),
    });
    const harness = new Harness({ ...parent, tools: [sleep, ...agents.tools], workspace: dir });
    const stream = harness.stream({ prompt: "go" });
    const iterate = (async () => {
      for await (const _ of stream) {
        // Drained so the run proceeds.
      }
    })();
    await expect.poll(() => log).toContain("sleep:start");
    stream.abort();
    const result = await stream.result;
    await iterate;
    expect(result.stopReason).toBe("aborted");
    await expect.poll(() => childRuns.at(-1)?.type).toBe("run_failed");
    const end = childRuns.at(-1);
    expect(end?.type === "run_failed" && end.stopReason).toBe("aborted");
    expect(log).toContain("sleep:aborted");
    expect(log).not.toContain("sleep:end");
    expect(agents.tasks("running")).toEqual([]);
  });

  it("refuses definitions that would let a child spawn, or name tools the parent lacks", () => {
    const model = new ScriptedModel([]);
    expect(
      () =>
        new Agents({
          parent: { model, tools: [echo] },
          agents: [{ name: "a", description: "d", tools: ["agent_spawn"] }],
        }),
    ).toThrow(/cannot spawn/);
    expect(
      () =>
        new Agents({
          parent: { model, tools: [echo] },
          agents: [{ name: "a", description: "d", tools: ["nope"] }],
        }),
    ).toThrow(/does not have/);
    expect(
      () => new Agents({ parent: { model }, agents: [{ name: "a", description: "d", model: "fast" }] }),
    ).toThrow(/options.models/);
    // Agent tools handed down in the parent's tool list are never given to a child.
    const first = new Agents({ parent: { model, tools: [echo] }, agents: [{ name: "a", description: "d" }] });
    const second = new Agents({
      parent: { model, tools: [echo, ...first.tools] },
      agents: [{ name: "b", description: "d" }],
    });
    expect(second.definitions.get("b")).toBeDefined();
  });
});

describe("approvals in a child", () => {
  it("a child call that waits for a person ends the child's task, not the parent", async () => {
    const guarded = defineTool({
      name: "deploy",
      description: "Deploys",
      inputSchema: z.object({}),
      annotations: { requires_approval: true },
      execute: async () => ({ content: "deployed" }),
    });
    const child = new ScriptedModel([{ toolCalls: [{ name: "deploy", arguments: {} }] }, { text: "x" }]);
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "agent_spawn", arguments: { agent_id: "ops", task: "deploy it" } }] },
      { text: "it needs a person" },
    ]);
    const parent = { model: parentModel, tools: [guarded], approver: askApprover };
    const agents = new Agents({
      parent,
      agents: [{ name: "ops", description: "deploys", tools: ["deploy"], model: child }],
    });
    const result = await new Harness({ ...parent, tools: [guarded, ...agents.tools], workspace: dir }).run({
      prompt: "go",
    });
    expect(result.stopReason).toBe("completed");
    expect(lastToolJson(result.messages)).toMatchObject({
      status: "failed",
      stop_reason: "approval_required",
    });
  });
});

describe("background tasks", () => {
  it("starts with timeout 0, is polled, listed and cancelled", async () => {
    const log: string[] = [];
    const sleep = sleeper(log);
    const child = new ScriptedModel([
      { toolCalls: [{ name: "sleep", arguments: { ms: 30_000 } }] },
      { text: "woke" },
    ]);
    let taskId = "";
    const parentModel = new ScriptedModel([
      {
        toolCalls: [
          { name: "agent_spawn", arguments: { agent_id: "sleeper", task: "nap", timeout_seconds: 0 } },
        ],
      },
      (ctx) => {
        taskId = String(lastToolJson(ctx.messages).task_id);
        return { toolCalls: [{ name: "task_output", arguments: { task_id: taskId, block: false } }] };
      },
      () => ({
        toolCalls: [{ name: "task_output", arguments: { task_id: taskId, block: true, timeout: 50 } }],
      }),
      () => ({ toolCalls: [{ name: "task_list", arguments: { status: "running" } }] }),
      () => ({ toolCalls: [{ name: "task_cancel", arguments: { task_id: taskId } }] }),
      () => ({ toolCalls: [{ name: "task_list", arguments: { status: "cancelled" } }] }),
      () => ({ toolCalls: [{ name: "task_cancel", arguments: { task_id: taskId } }] }),
      () => ({ toolCalls: [{ name: "task_output", arguments: { task_id: "task_nope" } }] }),
      { text: "done" },
    ]);
    const seen: string[] = [];
    const parent = { model: parentModel, tools: [sleep], hooks: recordingHooks(seen) };
    const agents = new Agents({ parent, agents: [{ name: "sleeper", description: "naps", model: child }] });
    const harness = new Harness({ ...parent, tools: [sleep, ...agents.tools], workspace: dir });
    const result = await harness.run({ prompt: "go" });
    expect(result.stopReason).toBe("completed");
    const tools = result.messages.filter((m) => m.role === "tool");
    const json = (i: number) => lastToolJson(result.messages, i - tools.length);
    expect(json(0)).toMatchObject({ status: "running", agent_key: "sleeper-1" });
    expect(String(json(0).note)).toMatch(/task_output/);
    expect(json(1)).toMatchObject({ task_id: taskId, status: "running", note: "still running" });
    expect(json(2)).toMatchObject({ status: "running", note: "not finished after 50 ms" });
    expect(json(3) as unknown).toMatchObject([{ task_id: taskId, status: "running", task: "nap" }]);
    expect(json(4)).toMatchObject({ task_id: taskId, status: "cancelled", stop_reason: "aborted" });
    expect(json(5) as unknown).toMatchObject([{ task_id: taskId, status: "cancelled" }]);
    expect(json(6)).toMatchObject({ status: "cancelled", note: "already ended; nothing to cancel" });
    const unknown = tools[7];
    expect(unknown?.role === "tool" && unknown.errorKind).toBe("NotFound");
    expect(log).toEqual(["sleep:start", "sleep:aborted"]);
    // after_subagent_run fired once, when a call of the parent saw the task end.
    expect(seen.filter((s) => s.startsWith("after_subagent_run"))).toEqual([
      "after_subagent_run:parent:sleeper:aborted",
    ]);
  });

  it("finishes in the background and task_output returns the result; agent_send continues the conversation", async () => {
    const child = new ScriptedModel([
      { text: "first answer", delayMs: 30 },
      (ctx) => ({ text: `second answer after ${ctx.messages.length} messages` }),
    ]);
    let taskId = "";
    const parentModel = new ScriptedModel([
      {
        toolCalls: [
          {
            name: "agent_spawn",
            arguments: { agent_id: "helper", task: "q1", label: "h", timeout_seconds: 0 },
          },
        ],
      },
      (ctx) => {
        taskId = String(lastToolJson(ctx.messages).task_id);
        return { toolCalls: [{ name: "task_output", arguments: { task_id: taskId, timeout: 10_000 } }] };
      },
      { toolCalls: [{ name: "agent_send", arguments: { label: "h", message: "q2" } }] },
      {
        toolCalls: [{ name: "agent_send", arguments: { agent_key: "helper-1", label: "h", message: "q3" } }],
      },
      { toolCalls: [{ name: "agent_list", arguments: {} }] },
      { text: "done" },
    ]);
    const parent = { model: parentModel, tools: [echo] };
    const agents = new Agents({ parent, agents: [{ name: "helper", description: "helps", model: child }] });
    const harness = new Harness({ ...parent, tools: [echo, ...agents.tools], workspace: dir });
    const result = await harness.run({ prompt: "go" });
    expect(result.stopReason).toBe("completed");
    const tools = result.messages.filter((m) => m.role === "tool");
    const json = (i: number) => lastToolJson(result.messages, i - tools.length);
    expect(json(1)).toMatchObject({ task_id: taskId, status: "completed", result: "first answer" });
    // The follow-up sees the first exchange: prompt q1, its answer, then q2.
    expect(json(2)).toMatchObject({ status: "completed", result: "second answer after 3 messages" });
    const both = tools[3];
    expect(both?.role === "tool" && both.errorKind).toBe("InvalidInput");
    expect(json(4) as unknown).toMatchObject([
      { agent_key: "helper-1", label: "h", status: "idle", tasks: 2 },
    ]);
    await agents.close();
  });

  it("refuses a follow-up to a subagent that is still working", async () => {
    const log: string[] = [];
    const sleep = sleeper(log);
    const child = new ScriptedModel([
      { toolCalls: [{ name: "sleep", arguments: { ms: 30_000 } }] },
      { text: "x" },
    ]);
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "agent_spawn", arguments: { agent_id: "s", task: "nap", timeout_seconds: 0 } }] },
      { toolCalls: [{ name: "agent_send", arguments: { agent_key: "s-1", message: "hurry" } }] },
      { text: "ok" },
    ]);
    const parent = { model: parentModel, tools: [sleep] };
    const agents = new Agents({ parent, agents: [{ name: "s", description: "naps", model: child }] });
    const result = await new Harness({ ...parent, tools: [sleep, ...agents.tools], workspace: dir }).run({
      prompt: "go",
    });
    const refused = result.messages.filter((m) => m.role === "tool")[1];
    expect(refused?.role === "tool" && refused.errorKind).toBe("Conflict");
    await agents.close();
    expect(agents.tasks("cancelled")).toHaveLength(1);
    expect(log).toContain("sleep:aborted");
  });
});
