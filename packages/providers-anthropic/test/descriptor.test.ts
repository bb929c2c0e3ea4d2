import { BridleError, userText } from "@bridle/core";
import { anthropicMessagesFormat, collectModelEvents, FakeProviderServer } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { anthropic } from "../src/index.js";

let server: FakeProviderServer;
beforeEach(async () => {
  server = await FakeProviderServer.start();
});
afterEach(() => server.close());

const request = () => ({ messages: [userText("hi")], tools: [], signal: new AbortController().signal });

describe("the anthropic descriptor", () => {
  it("makes its default model from the variables in the env it is given and streams a turn", async () => {
    const usage = { inputTokens: 1000, cacheReadTokens: 600, cacheWriteTokens: 300, outputTokens: 20 };
    server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events({ text: "hello", usage }) });
    const env = { ANTHROPIC_API_KEY: "key-from-env", ANTHROPIC_BASE_URL: server.url };
    const model = anthropic.create({ model: anthropic.defaultModel, env });

    const run = await collectModelEvents(model, request());

    if (run.terminal.type !== "done") throw new Error(`the turn failed: ${JSON.stringify(run.terminal)}`);
    expect(run.text).toBe("hello");
    expect(model.provider).toBe("anthropic");
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer key-from-env");
    expect(server.requests[0]?.body).toMatchObject({ model: "claude-sonnet-4-6" });
    expect(run.terminal.usage).toMatchObject(usage);
    const price = anthropic.models[anthropic.defaultModel]?.price;
    if (!price?.cacheRead || !price.cacheWrite) throw new Error("the default model has no cache prices");
    const expected =
      (100 * price.input + 600 * price.cacheRead + 300 * price.cacheWrite + 20 * price.output) / 1e6;
    expect(model.cost?.(run.terminal.usage)).toBeCloseTo(expected, 12);
  });

  it("needs a key even with a base URL, and says which variable", () => {
    let caught: unknown;
    try {
      anthropic.create({ model: anthropic.defaultModel, env: { ANTHROPIC_BASE_URL: server.url } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(BridleError);
    expect(caught).toMatchObject({ code: "invalid_config" });
    expect((caught as Error).message).toContain("ANTHROPIC_API_KEY");
    expect(anthropic.keyNeeded).toBe("always");
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a malformed base URL from its variable before any request", () => {
    const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "localhost:8080" };
    expect(() => anthropic.create({ model: anthropic.defaultModel, env })).toThrow(
      'ANTHROPIC_BASE_URL "localhost:8080" is not an http(s) URL',
    );
  });

  it("claims Claude model names only", () => {
    expect(anthropic.modelPattern?.test("claude-haiku-4-5-20251001")).toBe(true);
    expect(anthropic.modelPattern?.test("gpt-5-mini")).toBe(false);
    expect(Object.hasOwn(anthropic.models, anthropic.defaultModel)).toBe(true);
  });
});
