import { BridleError, defineTool, Harness, projectTranscript, ToolFailure, toolCallsOf } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { eventTypes, expectWellFormed, noopTool, resultText, sleepTool } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

describe("the run loop", () => {
  it("streams a text answer and completes", async () => {
    const model = new ScriptedModel([{ text: "hello there", chunkSize: 3 }]);
    const harness = new Harness({ model, workspace: dir, system: "be brief" });
    const stream = harness.stream({ prompt: "hi" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    expect(result.finalText).toBe("hello there");
    expect(eventTypes(events)).toEqual([
      "run_started",
      "model_request",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_delta",
      "model_response",
      "run_completed",
    ]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.every((e) => e.runId === result.runId)).toBe(true);
    expect(model.requests[0]?.system).toBe("be brief");
    expect(projectTranscript(events)).toEqual(result.messages);
  });

  it("records each call before it executes and appends its result", async () => {
    const seen: string[] = [];
    const recorder = defineTool({
      name: "recorder",
      description: "records",
      inputSchema: z.object({ value: z.string() }),
      execute: async ({ value }) => {
        seen.push(`executed:${value}`);
        return { content: `got ${value}`, details: { value } };
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "recorder", arguments: '{"value":"x"}' }] },
      { text: "done" },
    ]);
    const harness = new Harness({ model, tools: [recorder], workspace: dir });
    const result = await harness.run({
      prompt: "go",
      sink: {
        write: async (event) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (event.type === "tool_call_requested") seen.push("requested");
          if (event.type === "tool_call_completed") seen.push("completed");
        },
      },
    });
    expect(seen).toEqual(["requested", "executed:x", "completed"]);
    const toolMessage = result.messages.find((m) => m.role === "tool");
    expect(resultText(toolMessage)).toBe("got x");
    expect(toolMessage?.role === "tool" && toolMessage.details).toEqual({ value: "x" });
    // The raw argument JSON is kept exactly as the model wrote it.
    const call = result.messages.find((m) => m.role === "assistant");
    expect(call?.role === "assistant" && toolCallsOf(call)[0]?.arguments).toBe('{"value":"x"}');
    expect(model.requests[1]?.messages.at(-1)?.role).toBe("tool");
  });

  it("runs a batch concurrently and returns results in the model's order", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "sleep", arguments: { ms: 120, label: "slow" } },
          { name: "sleep", arguments: { ms: 10, label: "fast" } },
        ],
      },
      { text: "ok" },
    ]);
    const harness = new Harness({ model, tools: [sleepTool("sleep", log)], workspace: dir });
    const stream = harness.stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(log).toEqual(["start:slow", "start:fast", "end:fast", "end:slow"]);
    const completed = events.filter((e) => e.type === "tool_call_completed");
    expect(completed.map((e) => e.type === "tool_call_completed" && resultText(e.result))).toEqual([
      "slept fast",
      "slept slow",
    ]);
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results.map(resultText)).toEqual(["slept slow", "slept fast"]);
    expect(model.requests[1]?.messages.filter((m) => m.role === "tool").map(resultText)).toEqual([
      "slept slow",
      "slept fast",
    ]);
    expectWellFormed(result.messages);
  });

  it("runs the whole batch in order when one tool is sequential", async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "sleep", arguments: { ms: 60, label: "a" } },
          { name: "write", arguments: { ms: 5, label: "b" } },
          { name: "sleep", arguments: { ms: 5, label: "c" } },
        ],
      },
      { text: "ok" },
    ]);
    const tools = [sleepTool("sleep", log), sleepTool("write", log, { sequential: true })];
    const result = await new Harness({ model, tools, workspace: dir }).run({ prompt: "go" });
    expect(log).toEqual(["start:a", "end:a", "start:b", "end:b", "start:c", "end:c"]);
    expectWellFormed(result.messages);
  });

  it("continues from history and keeps it in the transcript", async () => {
    const model = new ScriptedModel([{ text: "second" }]);
    const harness = new Harness({ model, workspace: dir });
    const first = await new Harness({ model: new ScriptedModel([{ text: "first" }]), workspace: dir }).run({
      prompt: "one",
    });
    const second = await harness.run({ prompt: "two", history: first.messages });
    expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(model.requests[0]?.messages).toHaveLength(3);
  });

  it("reports an unknown tool to the model and goes on", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "nope", arguments: {} }] }, { text: "sorry" }]);
    const result = await new Harness({ model, tools: [noopTool], workspace: dir }).run({ prompt: "go" });
    const text = resultText(result.messages.find((m) => m.role === "tool"));
    expect(text).toMatch(/^UnknownTool: there is no tool named "nope"\. Available tools: noop/);
    expect(result.stopReason).toBe("completed");
  });

  it("turns each ToolFailure kind into a model-visible result naming it", async () => {
    const kinds = ["NotFound", "Denied", "Conflict", "InvalidInput"] as const;
    const failing = defineTool({
      name: "fail",
      description: "fails",
      inputSchema: z.object({ kind: z.enum(kinds) }),
      execute: async ({ kind }) => {
        throw new ToolFailure(kind, `failed as ${kind}`);
      },
    });
    const model = new ScriptedModel([
      { toolCalls: kinds.map((kind) => ({ name: "fail", arguments: { kind } })) },
      { text: "ok" },
    ]);
    const result = await new Harness({ model, tools: [failing], workspace: dir }).run({ prompt: "go" });
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results.map(resultText)).toEqual(kinds.map((kind) => `${kind}: failed as ${kind}`));
    expect(results.map((r) => r.role === "tool" && r.errorKind)).toEqual([...kinds]);
    expect(result.stopReason).toBe("completed");
    expectWellFormed(result.messages);
  });

  it("reports an unexpected exception in a tool as ToolError and goes on", async () => {
    const broken = defineTool({
      name: "broken",
      description: "throws",
      inputSchema: z.object({}),
      execute: async () => {
        throw new TypeError("cannot read properties of undefined");
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "broken" }] }, { text: "ok" }]);
    const result = await new Harness({ model, tools: [broken], workspace: dir }).run({ prompt: "go" });
    expect(resultText(result.messages[2])).toBe("ToolError: cannot read properties of undefined");
    expect(result.stopReason).toBe("completed");
  });

  it("ends the run on an infrastructure failure, with every call answered", async () => {
    const log: string[] = [];
    const infra = defineTool({
      name: "infra",
      description: "infrastructure trouble",
      inputSchema: z.object({}),
      execute: async () => {
        throw new BridleError("tool_infrastructure", "sandbox could not start");
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "infra" }, { name: "sleep", arguments: { ms: 5, label: "x" } }] },
    ]);
    const harness = new Harness({
      model,
      tools: [infra, sleepTool("sleep", log, { sequential: true })],
      workspace: dir,
    });
    const stream = harness.stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("tool_error");
    expect(result.error?.message).toBe("sandbox could not start");
    expect(events.at(-1)?.type).toBe("run_failed");
    expect(log).toEqual([]);
    expectWellFormed(result.messages);
  });

  it("times a slow tool out and tells the model", async () => {
    let sawAbort = false;
    const slow = defineTool({
      name: "slow",
      description: "slow",
      inputSchema: z.object({}),
      timeoutMs: 50,
      execute: (_args, ctx) =>
        new Promise<{ content: string }>((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            sawAbort = true;
            resolve({ content: "late" });
          });
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "slow" }] }, { text: "ok" }]);
    const result = await new Harness({ model, tools: [slow], workspace: dir }).run({ prompt: "go" });
    expect(resultText(result.messages[2])).toMatch(/^Timeout: slow did not finish within 50 ms/);
    expect(sawAbort).toBe(true);
  });

  it("emits tool progress into the event stream", async () => {
    const chatty = defineTool({
      name: "chatty",
      description: "reports progress",
      inputSchema: z.object({}),
      execute: async (_args, ctx) => {
        ctx.progress({ line: "step 1" });
        ctx.progress({ line: "step 2" });
        return { content: "done" };
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "chatty", id: "c1" }] }, { text: "ok" }]);
    const events = await collectEvents(
      new Harness({ model, tools: [chatty], workspace: dir }).stream({ prompt: "go" }),
    );
    const progress = events.filter((e) => e.type === "tool_progress");
    expect(progress.map((e) => e.type === "tool_progress" && [e.toolCallId, e.data])).toEqual([
      ["c1", { line: "step 1" }],
      ["c1", { line: "step 2" }],
    ]);
  });

  it("ends with store_error when the sink cannot record, before any tool runs", async () => {
    let executed = false;
    const tool = defineTool({
      name: "t",
      description: "t",
      inputSchema: z.object({}),
      execute: async () => {
        executed = true;
        return { content: "ran" };
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "t" }] }, { text: "ok" }]);
    const result = await new Harness({ model, tools: [tool], workspace: dir }).run({
      prompt: "go",
      sink: {
        write: (event) => {
          if (event.type === "tool_call_requested") throw new Error("disk full");
        },
      },
    });
    expect(result.stopReason).toBe("store_error");
    expect(result.error?.message).toMatch(/disk full/);
    expect(executed).toBe(false);
    expectWellFormed(result.messages);
  });

  it("gives duplicate or missing call ids unique ones", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "noop", id: "same" },
          { name: "noop", id: "same" },
        ],
      },
      { text: "ok" },
    ]);
    const result = await new Harness({ model, tools: [noopTool], workspace: dir }).run({ prompt: "go" });
    expectWellFormed(result.messages);
    const ids = result.messages
      .filter((m) => m.role === "tool")
      .map((m) => m.role === "tool" && m.toolCallId);
    expect(new Set(ids).size).toBe(2);
  });

  it("rejects an invalid configuration with a typed error", () => {
    const model = new ScriptedModel([]);
    expect(() => new Harness({ model, tools: [noopTool, noopTool] })).toThrow(/two tools are named "noop"/);
    expect(() => new Harness({ model, limits: { maxToolCalls: 0 } })).toThrow(BridleError);
    expect(() => new Harness({ model, tools: [{ ...noopTool, name: "has space" }] })).toThrow(/must match/);
  });
});

describe("provider failures", () => {
  it("ends with provider_error carrying the model's error", async () => {
    const model = new ScriptedModel([{ error: { code: "rate_limit", message: "slow down", status: 429 } }]);
    const result = await new Harness({ model, workspace: dir }).run({ prompt: "go" });
    expect(result.stopReason).toBe("provider_error");
    expect(result.error?.modelError).toMatchObject({ code: "rate_limit", status: 429 });
  });

  it("treats an adapter that throws as a provider error, not a crash", async () => {
    const model = {
      provider: "bad",
      model: "bad",
      // biome-ignore lint/correctness/useYield: the point is an adapter that throws before yielding
      async *stream() {
        throw new Error("socket hang up");
      },
    };
    const result = await new Harness({ model, workspace: dir }).run({ prompt: "go" });
    expect(result.stopReason).toBe("provider_error");
    expect(result.error?.message).toMatch(/socket hang up/);
  });

  it("fails when the stream ends without a complete turn", async () => {
    const model = { provider: "bad", model: "bad", async *stream() {} };
    const result = await new Harness({ model, workspace: dir }).run({ prompt: "go" });
    expect(result.stopReason).toBe("provider_error");
    expect(result.error?.code).toBe("bad_response");
  });
});
