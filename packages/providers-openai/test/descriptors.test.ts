import { BridleError, userText } from "@bridle/core";
import {
  collectModelEvents,
  FakeProviderServer,
  openaiChatFormat,
  openaiResponsesFormat,
} from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openaiChat, openaiResponses } from "../src/index.js";

let server: FakeProviderServer;
beforeEach(async () => {
  server = await FakeProviderServer.start();
});
afterEach(() => server.close());

const request = () => ({ messages: [userText("hi")], tools: [], signal: new AbortController().signal });

describe.each([
  { descriptor: openaiResponses, format: openaiResponsesFormat },
  { descriptor: openaiChat, format: openaiChatFormat },
])("the $descriptor.name descriptor", ({ descriptor, format }) => {
  it("makes its default model from the variables in the env it is given and streams a turn", async () => {
    const usage = { inputTokens: 1000, cacheReadTokens: 800, outputTokens: 20 };
    server.enqueue({ kind: "stream", events: format.events({ text: "hello", usage }) });
    const env = { OPENAI_API_KEY: "key-from-env", OPENAI_BASE_URL: format.baseUrl(server.url) };
    const model = descriptor.create({ model: descriptor.defaultModel, env });

    const run = await collectModelEvents(model, request());

    expect(run.text).toBe("hello");
    expect(model.provider).toBe(descriptor.name);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer key-from-env");
    expect(server.requests[0]?.body).toMatchObject({ model: descriptor.defaultModel });
    // The default model has a priced row, with the cached tokens at their own rate.
    const price = descriptor.models[descriptor.defaultModel]?.price;
    expect(price?.cacheRead).toBeLessThan(price?.input ?? 0);
    const reported = run.terminal.type === "done" ? run.terminal.usage : undefined;
    expect(reported?.cacheReadTokens).toBe(800);
    const expected =
      (200 * (price?.input ?? 0) + 800 * (price?.cacheRead ?? 0) + 20 * (price?.output ?? 0)) / 1e6;
    expect(reported && model.cost?.(reported)).toBeCloseTo(expected, 12);
  });

  it("prefers the options to the env, and takes extra model rows", async () => {
    server.enqueue({ kind: "stream", events: format.events({ text: "ok" }) });
    const env = { OPENAI_API_KEY: "env-key", OPENAI_BASE_URL: "http://127.0.0.1:9/never" };
    const info = descriptor.models[descriptor.defaultModel];
    if (!info) throw new Error("no row for the default model");
    const { price: _, ...unpriced } = info;
    const model = descriptor.create({
      model: "local-model",
      apiKey: "option-key",
      baseURL: format.baseUrl(server.url),
      models: { "local-model": unpriced },
      idleTimeoutMs: 5000,
      env,
    });

    const run = await collectModelEvents(model, request());

    if (run.terminal.type !== "done") throw new Error(`the turn failed: ${JSON.stringify(run.terminal)}`);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer option-key");
    expect(model.info?.contextWindow).toBe(info.contextWindow);
    expect(model.info?.price).toBeUndefined();
    expect(model.cost?.(run.terminal.usage)).toBeUndefined();
  });

  it("refuses a missing key without a base URL, naming the variable", () => {
    let caught: unknown;
    try {
      descriptor.create({ model: descriptor.defaultModel, env: {} });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BridleError);
    expect(caught).toMatchObject({ code: "invalid_config" });
    expect((caught as Error).message).toContain(descriptor.keyVariables[0]);
    expect(descriptor.keyNeeded).toBe("without-base-url");
  });
});

describe("which names each OpenAI descriptor claims", () => {
  it("Responses claims OpenAI's model families and not Claude; Chat Completions claims none", () => {
    for (const name of ["gpt-5-mini", "o4-mini", "codex-mini-latest"])
      expect(openaiResponses.modelPattern?.test(name)).toBe(true);
    expect(openaiResponses.modelPattern?.test("claude-sonnet-4-6")).toBe(false);
    expect(openaiChat.modelPattern).toBeUndefined();
    expect(Object.hasOwn(openaiResponses.models, openaiResponses.defaultModel)).toBe(true);
    expect(Object.hasOwn(openaiChat.models, openaiChat.defaultModel)).toBe(true);
  });
});
