import { defineTool, Harness } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectWellFormed, noopTool, resultText, sleepTool } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

describe("abort", () => {
  it("reaches a slow tool, cancels its call and ends with a well-formed history", async () => {
    const log: string[] = [];
    let toolSignal: AbortSignal | undefined;
    const slow = defineTool({
      name: "slow",
      description: "waits for abort",
      inputSchema: z.object({}),
      execute: (_args, ctx) => {
        toolSignal = ctx.signal;
        return new Promise<never>((_resolve, reject) =>
          ctx.signal.addEventListener("abort", () => reject(new Error("stop"))),
        );
      },
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "slow" },
          { name: "sleep", arguments: { ms: 10_000, label: "long" } },
          { name: "slow" },
        ],
      },
      { text: "never" },
    ]);
    const controller = new AbortController();
    // The abort comes once the long sleep has started, whenever that is on a busy machine.
    const sleep = sleepTool("sleep", log, { onStart: () => controller.abort() });
    const harness = new Harness({ model, tools: [slow, sleep], workspace: dir });
    const stream = harness.stream({ prompt: "go", signal: controller.signal });
    const events: string[] = [];
    for await (const event of stream) events.push(event.type);
    const result = await stream.result;
    expect(result.stopReason).toBe("aborted");
    expect(toolSignal?.aborted).toBe(true);
    expect(log).toEqual(["start:long"]);
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results).toHaveLength(3);
    for (const r of results) expect(resultText(r)).toMatch(/^Cancelled: /);
    expect(result.usage.cancelledToolCalls).toBe(3);
    expect(events.at(-1)).toBe("run_failed");
    expect(model.calls).toBe(1);
    expectWellFormed(result.messages);
  });

  it("reaches the model stream and ends before any tool runs", async () => {
    const model = new ScriptedModel([{ text: "slow answer", delayMs: 10_000 }]);
    const controller = new AbortController();
    const stream = new Harness({ model, workspace: dir }).stream({ prompt: "go", signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("aborted");
    expect(events.at(-1)).toMatchObject({ type: "run_failed", stopReason: "aborted" });
    expectWellFormed(result.messages);
  });

  it("ends at once when the signal is already aborted", async () => {
    const model = new ScriptedModel([{ text: "never" }]);
    const result = await new Harness({ model, workspace: dir }).run({
      prompt: "go",
      signal: AbortSignal.abort(),
    });
    expect(result.stopReason).toBe("aborted");
    expect(model.calls).toBe(0);
  });

  it("aborts the run when the consumer stops reading the stream", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "sleep", arguments: { ms: 10_000, label: "a" } }] },
    ]);
    const stream = new Harness({ model, tools: [sleepTool("sleep", log)], workspace: dir }).stream({
      prompt: "go",
    });
    for await (const event of stream) if (event.type === "tool_call_requested") break;
    const result = await stream.result;
    expect(result.stopReason).toBe("aborted");
    expectWellFormed(result.messages);
  });

  it("stops a sequential batch between calls", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "step", arguments: { ms: 50, label: "1" } },
          { name: "step", arguments: { ms: 50, label: "2" } },
        ],
      },
    ]);
    const controller = new AbortController();
    // The first step is aborted while it runs; the second must never start.
    const stream = new Harness({
      model,
      tools: [sleepTool("step", log, { sequential: true, onStart: () => controller.abort() })],
      workspace: dir,
    }).stream({ prompt: "go", signal: controller.signal });
    await collectEvents(stream);
    const result = await stream.result;
    expect(log).toEqual(["start:1"]);
    expectWellFormed(result.messages);
  });
});

describe("limits", () => {
  it("refuses a batch that would pass max tool calls before anything in it runs", async () => {
    const ran: string[] = [];
    const counted = defineTool({
      name: "counted",
      description: "counts",
      inputSchema: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        ran.push(id);
        return { content: id };
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "counted", arguments: { id: "a" } }] },
      {
        toolCalls: [
          { name: "counted", arguments: { id: "b" } },
          { name: "counted", arguments: { id: "c" } },
        ],
      },
      { text: "never" },
    ]);
    const harness = new Harness({ model, tools: [counted], workspace: dir, limits: { maxToolCalls: 2 } });
    const result = await harness.run({ prompt: "go" });
    expect(result.stopReason).toBe("max_tool_calls");
    expect(ran).toEqual(["a"]);
    const refused = result.messages.slice(-2);
    for (const r of refused) expect(resultText(r)).toMatch(/^LimitExceeded: not run: this batch of 2 calls/);
    expect(result.usage.toolCalls).toBe(1);
    expectWellFormed(result.messages);
  });

  it("stops at max model requests with every call answered", async () => {
    const model = new ScriptedModel(() => ({ toolCalls: [{ name: "noop" }] }));
    const result = await new Harness({
      model,
      tools: [noopTool],
      workspace: dir,
      limits: { maxModelRequests: 3 },
    }).run({ prompt: "go" });
    expect(result.stopReason).toBe("max_model_requests");
    expect(model.calls).toBe(3);
    expect(result.usage.modelRequests).toBe(3);
    expectWellFormed(result.messages);
  });

  it("tells the model once per threshold how much budget is left", async () => {
    const model = new ScriptedModel(() => ({ toolCalls: [{ name: "noop" }] }));
    const stream = new Harness({
      model,
      tools: [noopTool],
      workspace: dir,
      limits: { maxModelRequests: 10, warnAt: [0.5, 0.8] },
    }).stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const warnings = events.filter((e) => e.type === "limit_warning");
    expect(warnings.map((e) => e.type === "limit_warning" && [e.limit, e.used, e.max])).toEqual([
      ["model_requests", 5, 10],
      ["model_requests", 8, 10],
    ]);
    // The notice reaches the model as part of the next request, exactly once.
    const notices = model.requests
      .at(-1)
      ?.messages.filter((m) => m.role === "user" && JSON.stringify(m).includes("[harness notice]"));
    expect(notices).toHaveLength(2);
    const result = await stream.result;
    expectWellFormed(result.messages);
  });

  it("sums token usage across requests", async () => {
    const usage = {
      inputTokens: 100,
      outputTokens: 10,
      cacheReadTokens: 40,
      cacheWriteTokens: 5,
      reasoningTokens: 2,
    };
    const model = new ScriptedModel([
      { toolCalls: [{ name: "noop" }], usage },
      { text: "done", usage },
    ]);
    const result = await new Harness({ model, tools: [noopTool], workspace: dir }).run({ prompt: "go" });
    expect(result.usage.tokens).toEqual({
      inputTokens: 200,
      outputTokens: 20,
      cacheReadTokens: 80,
      cacheWriteTokens: 10,
      reasoningTokens: 4,
    });
  });
});

describe("approval", () => {
  const guarded = defineTool({
    name: "guarded",
    description: "needs approval",
    inputSchema: z.object({ what: z.string() }),
    annotations: { requires_approval: true, destructive: true },
    execute: async ({ what }) => ({ content: `did ${what}` }),
  });

  it("denies a call that needs approval when no approver is configured", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "guarded", arguments: { what: "x" } }] },
      { text: "ok" },
    ]);
    const result = await new Harness({ model, tools: [guarded], workspace: dir }).run({ prompt: "go" });
    expect(resultText(result.messages[2])).toMatch(/^Denied: guarded requires approval/);
  });

  it("asks the approver and honours its decision", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "guarded", arguments: { what: "good" } },
          { name: "guarded", arguments: { what: "bad" } },
        ],
      },
      { text: "ok" },
    ]);
    const approver = {
      decide: async (request: { args: unknown }) =>
        (request.args as { what: string }).what === "good"
          ? { approved: true }
          : { approved: false, reason: "not that one" },
    };
    const stream = new Harness({ model, tools: [guarded], workspace: dir, approver }).stream({
      prompt: "go",
    });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.messages.filter((m) => m.role === "tool").map(resultText)).toEqual([
      "did good",
      "Denied: the user did not approve this call: not that one",
    ]);
    expect(events.filter((e) => e.type === "approval_requested")).toHaveLength(2);
    expect(events.filter((e) => e.type === "approval_resolved")).toHaveLength(2);
  });
});
