import { Harness } from "@bridle/core";
import { ScriptedModel, type ScriptedTurn, type ScriptRequest } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createParallelLlmTool } from "../src/index.js";
import { lastToolJson } from "./helpers.js";

function promptOf(ctx: ScriptRequest): string {
  const first = ctx.messages[0];
  return first?.role === "user" ? first.content.map((p) => (p.type === "text" ? p.text : "")).join("") : "";
}

describe("parallel_llm", () => {
  it("answers every prompt concurrently under the limit, each failure on its own", async () => {
    let inFlight = 0;
    let peak = 0;
    const worker = new ScriptedModel(async (ctx): Promise<ScriptedTurn> => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight--;
      const prompt = promptOf(ctx);
      if (prompt === "p3") return { error: { code: "server", message: "upstream 500" } };
      return { text: `answer to ${prompt}`, usage: { inputTokens: 10, outputTokens: 2 } };
    });
    const tool = createParallelLlmTool({ model: worker, concurrency: 2 });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "parallel_llm", arguments: { prompts: ["p0", "p1", "p2", "p3", "p4"] } }] },
      { text: "ok" },
    ]);
    const result = await new Harness({ model: parentModel, tools: [tool] }).run({ prompt: "fan out" });
    expect(result.stopReason).toBe("completed");
    const report = lastToolJson(result.messages);
    expect(report).toEqual({
      results: [
        { index: 0, ok: true, text: "answer to p0" },
        { index: 1, ok: true, text: "answer to p1" },
        { index: 2, ok: true, text: "answer to p2" },
        { index: 3, ok: false, error: { code: "server", message: "upstream 500" } },
        { index: 4, ok: true, text: "answer to p4" },
      ],
      succeeded: 4,
      failed: 1,
    });
    expect(peak).toBe(2);
    // One-shot: no tools, no parent context.
    expect(worker.requests.every((r) => r.tools.length === 0 && r.messages.length === 1)).toBe(true);
  });

  it("validates structured answers per entry, with corrective turns", async () => {
    const worker = new ScriptedModel((ctx): ScriptedTurn => {
      const prompt = promptOf(ctx);
      if (prompt === "bad") return { text: '{"label": 7}' };
      if (prompt === "fixable" && ctx.messages.length === 1) return { text: "not json" };
      return { text: `{"label": "${prompt}"}` };
    });
    const tool = createParallelLlmTool({
      model: worker,
      output: { mode: "prompted", schema: z.object({ label: z.string() }) },
      limits: { outputRetries: 1 },
    });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "parallel_llm", arguments: { prompts: ["good", "fixable", "bad"] } }] },
      { text: "ok" },
    ]);
    const result = await new Harness({ model: parentModel, tools: [tool] }).run({ prompt: "classify" });
    const report = lastToolJson(result.messages) as { results: Record<string, unknown>[] };
    expect(report.results[0]).toMatchObject({ ok: true, output: { label: "good" } });
    expect(report.results[1]).toMatchObject({ ok: true, output: { label: "fixable" } });
    expect(report.results[2]).toMatchObject({ ok: false, error: { code: "output_retries_exceeded" } });
  });

  it("refuses an empty or oversized list as InvalidInput", async () => {
    const tool = createParallelLlmTool({ model: new ScriptedModel([]), maxPrompts: 2 });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "parallel_llm", arguments: { prompts: [] } }] },
      { toolCalls: [{ name: "parallel_llm", arguments: { prompts: ["a", "b", "c"] } }] },
      { text: "ok" },
    ]);
    const result = await new Harness({ model: parentModel, tools: [tool] }).run({ prompt: "x" });
    const kinds = result.messages.flatMap((m) => (m.role === "tool" ? [m.errorKind] : []));
    expect(kinds).toEqual(["InvalidInput", "InvalidInput"]);
    expect(() => createParallelLlmTool({ model: new ScriptedModel([]), concurrency: 0 })).toThrow(
      /concurrency/,
    );
  });

  it("stops every entry when the call is aborted", async () => {
    const worker = new ScriptedModel(() => ({ text: "slow", delayMs: 10_000 }));
    const tool = createParallelLlmTool({ model: worker, concurrency: 3 });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "parallel_llm", arguments: { prompts: ["a", "b", "c"] } }] },
      { text: "never" },
    ]);
    const controller = new AbortController();
    const running = new Harness({ model: parentModel, tools: [tool] }).run({
      prompt: "x",
      signal: controller.signal,
    });
    await expect.poll(() => worker.calls).toBe(3);
    controller.abort();
    const result = await running;
    expect(result.stopReason).toBe("aborted");
  });
});
