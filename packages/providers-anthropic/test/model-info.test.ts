import { Harness, type RunEvent } from "@bridle/core";
import { anthropicMessagesFormat, collectEvents, FakeProviderServer, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { anthropicModels, createAnthropicModel } from "../src/index.js";

let server: FakeProviderServer;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  server = await FakeProviderServer.start();
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

const warnings = (events: readonly RunEvent[]) =>
  events.flatMap((e) => (e.type === "model_warning" ? [{ code: e.code, message: e.message }] : []));

describe("the model's row", () => {
  it("carries window, output limit, price, capabilities and the day it was checked", () => {
    const model = createAnthropicModel({ model: "claude-haiku-4-5-20251001", apiKey: "k" });
    expect(model.info).toMatchObject({
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
      capabilities: { images: true, reasoning: true, structuredOutput: false },
    });
    expect(model.info?.checked).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const [name, row] of Object.entries(anthropicModels)) {
      expect(row.checked, name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(row.maxOutputTokens, name).toBeLessThan(row.contextWindow);
    }
  });

  it("is never a neighbour's: claude-opus-4-9 has no row, no price, and the run says so once", async () => {
    const model = createAnthropicModel({ model: "claude-opus-4-9", apiKey: "k", baseURL: server.url });
    expect(model.info).toBeUndefined();
    expect(model.cost({ ...zero, inputTokens: 1000 })).toBeUndefined();
    server.enqueue({
      kind: "stream",
      events: anthropicMessagesFormat.events({
        toolCalls: [{ id: "toolu_1", name: "nothing", arguments: "{}" }],
      }),
    });
    server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events({ text: "done" }) });
    const stream = new Harness({ model, workspace: dir }).stream({ prompt: "hi" });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("completed");
    expect(server.requests).toHaveLength(2);
    const said = warnings(events);
    expect(said).toHaveLength(1);
    expect(said[0]?.code).toBe("model_unknown");
    expect(said[0]?.message).toContain("cost unknown: no price for claude-opus-4-9");
  });

  it("says it cannot send a native output schema instead of dropping it silently", async () => {
    const model = createAnthropicModel({ model: "claude-sonnet-4-5", apiKey: "k", baseURL: server.url });
    server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events({ text: '{"answer":42}' }) });
    const harness = new Harness({
      model,
      workspace: dir,
      output: { mode: "native", schema: z.object({ answer: z.number() }) },
    });
    const stream = harness.stream({ prompt: "the answer?" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    expect(result.output).toEqual({ answer: 42 });
    expect(warnings(events)).toEqual([
      { code: "unsupported_setting", message: expect.stringContaining("no native structured output") },
    ]);
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain("output_format");
  });

  it("says temperature is left out beside extended thinking", async () => {
    const model = createAnthropicModel({ model: "claude-sonnet-4-5", apiKey: "k", baseURL: server.url });
    server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events({ text: "ok" }) });
    const harness = new Harness({
      model,
      workspace: dir,
      modelOptions: { temperature: 0.2, reasoning: { budgetTokens: 2048 } },
    });
    const stream = harness.stream({ prompt: "hi" });
    const events = await collectEvents(stream);
    expect(warnings(events)).toEqual([
      { code: "unsupported_setting", message: expect.stringContaining("temperature is not sent") },
    ]);
    expect(server.requests[0]?.body).not.toHaveProperty("temperature");
    expect(server.requests[0]?.body).toMatchObject({ thinking: { budget_tokens: 2048 } });
  });

  it("keeps max_tokens within a small model's output limit", async () => {
    const model = createAnthropicModel({
      model: "claude-3-haiku-20240307",
      apiKey: "k",
      baseURL: server.url,
    });
    server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events({ text: "ok" }) });
    const stream = new Harness({ model, workspace: dir }).stream({ prompt: "hi" });
    const events = await collectEvents(stream);
    expect(warnings(events)).toEqual([]);
    expect(server.requests[0]?.body).toMatchObject({ max_tokens: 4_096 });
  });
});

const zero = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
