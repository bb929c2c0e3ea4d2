import { Harness, type RunEvent } from "@bridle/core";
import {
  collectEvents,
  FakeProviderServer,
  openaiChatFormat,
  openaiResponsesFormat,
  tempWorkspace,
} from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createOpenAIChatModel, createOpenAIResponsesModel, openaiModels } from "../src/index.js";

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

describe("OpenAI model rows", () => {
  it("are exact and dated: gpt-5's window and price, and no row lent to a longer name", () => {
    const gpt5 = createOpenAIResponsesModel({ model: "gpt-5", apiKey: "k" });
    expect(gpt5.info).toMatchObject({
      contextWindow: 400_000,
      maxOutputTokens: 128_000,
      price: { input: 1.25, output: 10, cacheRead: 0.125 },
      capabilities: { images: true, reasoning: true, structuredOutput: true },
    });
    expect(createOpenAIResponsesModel({ model: "gpt-5.9-preview", apiKey: "k" }).info).toBeUndefined();
    expect(createOpenAIChatModel({ model: "gpt-4o-2024-08-06", apiKey: "k" }).info?.contextWindow).toBe(
      128_000,
    );
    for (const [name, row] of Object.entries(openaiModels)) {
      expect(row.checked, name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
  });

  it("leaves reasoning out of a request to a model without it, and says so", async () => {
    server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "ok" }) });
    const model = createOpenAIResponsesModel({ model: "gpt-4.1", apiKey: "k", baseURL: `${server.url}/v1` });
    const harness = new Harness({ model, workspace: dir, modelOptions: { reasoning: { effort: "high" } } });
    const stream = harness.stream({ prompt: "hi" });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("completed");
    expect(warnings(events)).toEqual([
      { code: "unsupported_setting", message: expect.stringContaining("gpt-4.1 does not reason") },
    ]);
    expect(server.requests[0]?.body).not.toHaveProperty("reasoning");
  });

  it("says a server without response_format cannot take the native output schema", async () => {
    server.enqueue({ kind: "stream", events: openaiChatFormat.events({ text: '{"n":1}' }) });
    const model = createOpenAIChatModel({
      model: "gpt-4.1-mini",
      apiKey: "k",
      baseURL: `${server.url}/v1`,
      compat: { jsonSchema: false },
    });
    expect(model.info?.capabilities.structuredOutput).toBe(false);
    const harness = new Harness({
      model,
      workspace: dir,
      output: { mode: "native", schema: z.object({ n: z.number() }) },
    });
    const stream = harness.stream({ prompt: "n?" });
    const events = await collectEvents(stream);
    expect((await stream.result).output).toEqual({ n: 1 });
    expect(warnings(events).map((w) => w.code)).toEqual(["unsupported_setting"]);
    expect(server.requests[0]?.body).not.toHaveProperty("response_format");
  });

  it("reports a local model with no row once, and sends the request as asked", async () => {
    server.enqueue({ kind: "stream", events: openaiChatFormat.events({ text: "ok" }) });
    const model = createOpenAIChatModel({ model: "qwen3:8b", apiKey: "k", baseURL: `${server.url}/v1` });
    const stream = new Harness({ model, workspace: dir }).stream({ prompt: "hi" });
    const events = await collectEvents(stream);
    expect(warnings(events)).toEqual([
      { code: "model_unknown", message: expect.stringContaining("cost unknown: no price for qwen3:8b") },
    ]);
  });
});
