import { defineTool, Harness, type RunEvent, type ToolOutput } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ATTR } from "../src/index.js";
import { byName, echo, failing, idOf, memoryTracing, one, parentOf, waitingTool } from "./fixtures.js";

describe("error statuses", () => {
  it("marks failed tool calls with their failure kind as error.type", async () => {
    const { tracer, spans } = memoryTracing();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "explode", arguments: {}, id: "boom" },
          { name: "echo", arguments: { txt: 3 }, id: "bad_args" },
          { name: "no_such_tool", arguments: {}, id: "unknown" },
          { name: "echo", arguments: { text: "fine" }, id: "fine" },
        ],
      },
      { text: "ok" },
    ]);
    const harness = new Harness({ model, tools: [echo, failing] });
    const result = await harness.run({ prompt: "try things", sink: tracer });
    expect(result.stopReason).toBe("completed");
    const all = spans();
    const byCall = (id: string) => all.find((span) => span.attributes[ATTR.toolCallId] === id);
    expect(byCall("boom")?.status.code).toBe(SpanStatusCode.ERROR);
    expect(byCall("boom")?.attributes[ATTR.errorType]).toBe("ToolError");
    expect(byCall("bad_args")?.attributes[ATTR.errorType]).toBe("InvalidInput");
    expect(byCall("unknown")?.attributes[ATTR.errorType]).toBe("UnknownTool");
    expect(byCall("unknown")?.name).toBe("execute_tool no_such_tool");
    expect(byCall("fine")?.status.code).toBe(SpanStatusCode.UNSET);
    expect(byCall("fine")?.attributes[ATTR.errorType]).toBeUndefined();
    // Without content capture the status message names the kind, not the model-visible text.
    expect(byCall("boom")?.status.message).toBe("ToolError");
    // A run whose tools failed but which completed is not an error.
    expect(one(all, "invoke_agent").status.code).toBe(SpanStatusCode.UNSET);
  });

  it("marks a call that ran out of time as Timeout", async () => {
    const { tracer, spans } = memoryTracing();
    const slow = defineTool({
      name: "slow",
      description: "Takes too long",
      inputSchema: z.object({}),
      timeoutMs: 30,
      execute: (_args, ctx) =>
        new Promise<ToolOutput>((resolve) => {
          const timer = setTimeout(() => resolve({ content: "late" }), 10_000);
          ctx.signal.addEventListener("abort", () => clearTimeout(timer));
        }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "slow", arguments: {} }] }, { text: "gave up" }]);
    const result = await new Harness({ model, tools: [slow] }).run({ prompt: "go", sink: tracer });
    expect(result.stopReason).toBe("completed");
    const span = one(spans(), "execute_tool slow");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes[ATTR.errorType]).toBe("Timeout");
  });

  it("ends the chat span with the provider's error code and the run with provider_error", async () => {
    const { tracer, spans } = memoryTracing();
    const model = new ScriptedModel([{ error: { code: "rate_limit", message: "slow down", status: 429 } }]);
    const result = await new Harness({ model }).run({ prompt: "hi", sink: tracer });
    expect(result.stopReason).toBe("provider_error");
    const all = spans();
    const chat = one(all, "chat scripted-model");
    expect(chat.status).toEqual({ code: SpanStatusCode.ERROR, message: "slow down" });
    expect(chat.attributes[ATTR.errorType]).toBe("rate_limit");
    const agent = one(all, "invoke_agent");
    expect(agent.status.code).toBe(SpanStatusCode.ERROR);
    expect(agent.attributes[ATTR.errorType]).toBe("provider_error");
    expect(agent.attributes[ATTR.stopReason]).toBe("provider_error");
    expect(tracer.openSpans).toBe(0);
  });

  it("ends every span of a run aborted while a tool runs", async () => {
    const { tracer, spans } = memoryTracing();
    const controller = new AbortController();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "wait", arguments: {}, id: "slow" },
          { name: "echo", arguments: { text: "quick" }, id: "quick" },
        ],
      },
      { text: "never reached" },
    ]);
    const harness = new Harness({ model, tools: [echo, waitingTool(() => controller.abort())] });
    const result = await harness.run({ prompt: "wait", sink: tracer, signal: controller.signal });
    expect(result.stopReason).toBe("aborted");
    expect(tracer.openSpans).toBe(0);
    const all = spans();
    // invoke_agent, one chat, two tool calls: all exported, so all ended.
    expect(all).toHaveLength(4);
    const agent = one(all, "invoke_agent");
    expect(agent.status.code).toBe(SpanStatusCode.ERROR);
    expect(agent.attributes[ATTR.errorType]).toBe("aborted");
    const slow = one(all, "execute_tool wait");
    expect(parentOf(slow)).toBe(idOf(agent));
    expect(slow.status.code).toBe(SpanStatusCode.ERROR);
    expect(["Cancelled", "ToolError"]).toContain(slow.attributes[ATTR.errorType]);
    for (const span of all) expect(span.ended).toBe(true);
  });

  it("ends the chat span of a run aborted while the model is answering", async () => {
    const { tracer, spans } = memoryTracing();
    const controller = new AbortController();
    const model = new ScriptedModel([{ text: "too late", delayMs: 10_000 }]);
    const stream = new Harness({ model }).stream({ prompt: "hi", sink: tracer, signal: controller.signal });
    for await (const event of stream) {
      if (event.type === "model_request") controller.abort();
    }
    const result = await stream.result;
    expect(result.stopReason).toBe("aborted");
    expect(tracer.openSpans).toBe(0);
    const all = spans();
    const chat = one(all, "chat scripted-model");
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
    expect(chat.attributes[ATTR.errorType]).toBe("aborted");
    expect(one(all, "invoke_agent").attributes[ATTR.errorType]).toBe("aborted");
  });

  it("ends a run refused for its tool-call limit, with every refused call", async () => {
    const { tracer, spans } = memoryTracing();
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "a" } },
          { name: "echo", arguments: { text: "b" } },
          { name: "echo", arguments: { text: "c" } },
        ],
      },
    ]);
    const result = await new Harness({ model, tools: [echo], limits: { maxToolCalls: 2 } }).run({
      prompt: "many",
      sink: tracer,
    });
    expect(result.stopReason).toBe("max_tool_calls");
    const all = spans();
    const calls = byName(all, "execute_tool echo");
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call.attributes[ATTR.errorType]).toBe("LimitExceeded");
    expect(one(all, "invoke_agent").attributes[ATTR.errorType]).toBe("max_tool_calls");
    expect(tracer.openSpans).toBe(0);
  });

  it("endAll closes the spans of a stream its consumer stopped reading", async () => {
    const { tracer, spans } = memoryTracing();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
      { text: "done" },
    ]);
    const stream = new Harness({ model, tools: [echo] }).stream({ prompt: "go" });
    for await (const event of stream) {
      tracer.observe(event);
      if (event.type === "tool_call_requested") break;
    }
    await stream.result;
    expect(tracer.openSpans).toBe(2);
    tracer.endAll();
    expect(tracer.openSpans).toBe(0);
    const all = spans();
    expect(all).toHaveLength(3);
    for (const span of all.filter((s) => s.name !== "chat scripted-model")) {
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes[ATTR.errorType]).toBe("abandoned");
    }
  });
});

describe("robustness", () => {
  it("replays stored events into the same span times", async () => {
    const events: RunEvent[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
      { text: "done" },
    ]);
    await new Harness({ model, tools: [echo] }).run({
      prompt: "go",
      sink: { write: (e) => void events.push(e) },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { tracer, spans } = memoryTracing();
    for (const event of events) tracer.observe(event);
    const ms = (time: readonly [number, number]) => time[0] * 1000 + time[1] / 1e6;
    const started = events.find((event) => event.type === "run_started");
    const requested = events.find((event) => event.type === "tool_call_requested");
    expect(ms(one(spans(), "invoke_agent").startTime)).toBeCloseTo(started?.time ?? 0, 3);
    expect(ms(one(spans(), "execute_tool echo").startTime)).toBeCloseTo(requested?.time ?? 0, 3);
    const ended = events.find((event) => event.type === "run_completed");
    // From the events' own clock, not the replay's: the replay ran 20 ms later.
    expect(Math.abs(ms(one(spans(), "invoke_agent").endTime) - (ended?.time ?? 0))).toBeLessThanOrEqual(1);
  });

  it("traces a stream fed twice (as sink and while iterating) once", async () => {
    const { tracer, spans } = memoryTracing();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
      { text: "done" },
    ]);
    const stream = new Harness({ model, tools: [echo] }).stream({ prompt: "go", sink: tracer });
    const seen: RunEvent[] = [];
    for await (const event of stream) {
      tracer.observe(event);
      seen.push(event);
    }
    for (const event of seen) tracer.observe(event);
    expect(spans()).toHaveLength(4);
    expect(tracer.openSpans).toBe(0);
  });

  it("ignores events of a run that already ended, and never throws on odd input", async () => {
    const { tracer, spans } = memoryTracing();
    const events: RunEvent[] = [];
    const model = new ScriptedModel([{ text: "hi" }]);
    await new Harness({ model }).run({ prompt: "x", sink: { write: (event) => void events.push(event) } });
    for (const event of events) tracer.observe(event);
    const runId = events[0]?.runId ?? "";
    const late = {
      runId,
      seq: 99,
      time: Date.now(),
      type: "tool_progress",
      toolCallId: "gone",
      toolName: "wait",
      data: 1,
    };
    tracer.observe(late as RunEvent);
    expect(tracer.openSpans).toBe(0);
    expect(spans()).toHaveLength(2);

    // A result for a call never requested, a response without a request, from a run never started.
    const stray = {
      runId: "stray",
      seq: 0,
      time: Date.now(),
      type: "tool_call_completed",
      result: { role: "tool", toolCallId: "nope", toolName: "x", content: [], isError: false },
      durationMs: 1,
    };
    expect(() => tracer.observe(stray as RunEvent)).not.toThrow();
    expect(() => tracer.observe({ ...stray, type: "model_response" } as unknown as RunEvent)).not.toThrow();
    tracer.endAll();
    expect(tracer.openSpans).toBe(0);
  });
});
