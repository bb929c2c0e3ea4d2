import { BridleError } from "@bridle/core";
import { collectModelEvents, FakeProviderServer, openaiChatFormat } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { aiSdk } from "../src/index.js";

let server: FakeProviderServer;
beforeEach(async () => {
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
});

const hello = {
  messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }],
  tools: [],
};

describe("the ai-sdk provider descriptor", () => {
  it("loads the named package and streams one turn from its model", async () => {
    server.enqueue({ kind: "stream", events: openaiChatFormat.events({ text: "hello from qwen" }) });
    const model = aiSdk.create({
      model: "@ai-sdk/openai-compatible:qwen3",
      baseURL: openaiChatFormat.baseUrl(server.url),
      env: { AI_SDK_API_KEY: "key-123" },
    });
    expect(model).toMatchObject({ provider: "ai-sdk", model: "@ai-sdk/openai-compatible:qwen3" });
    const run = await collectModelEvents(model, { ...hello, signal: new AbortController().signal });
    expect(run.terminal).toMatchObject({
      type: "done",
      message: { content: [{ type: "text", text: "hello from qwen" }] },
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(server.requests[0]?.body).toMatchObject({ model: "qwen3" });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer key-123");
  });

  it("takes the base URL from AI_SDK_BASE_URL when none is given", async () => {
    server.enqueue({ kind: "stream", events: openaiChatFormat.events({ text: "via the variable" }) });
    const model = aiSdk.create({
      model: "@ai-sdk/openai-compatible:llama",
      env: { AI_SDK_BASE_URL: openaiChatFormat.baseUrl(server.url), AI_SDK_API_KEY: "k" },
    });
    const run = await collectModelEvents(model, { ...hello, signal: new AbortController().signal });
    expect(run.text).toBe("via the variable");
    expect(server.requests[0]?.body).toMatchObject({ model: "llama" });
  });

  it("refuses a model name without a package, a package that is not installed and a base URL without a scheme", () => {
    const bad = (model: string, baseURL?: string) => () =>
      aiSdk.create({ model, env: {}, ...(baseURL ? { baseURL } : {}) });
    for (const name of ["qwen3", "@ai-sdk/openai:", ":qwen3"]) {
      expect(bad(name)).toThrow(BridleError);
      expect(bad(name)).toThrow(/<package>:<model>/);
    }
    expect(bad("@ai-sdk/no-such-provider-package:m")).toThrow(
      /not installed.*npm install @ai-sdk\/no-such-provider-package/,
    );
    expect(bad("@ai-sdk/openai-compatible:m", "localhost:8080/v1")).toThrow(/not an http\(s\) URL/);
    try {
      bad("qwen3")();
    } catch (error) {
      expect((error as BridleError).code).toBe("invalid_config");
    }
  });

  it("ends the turn with a typed, unretried error when the package makes no provider it can use", async () => {
    // @ai-sdk/provider exports no create… function: the adapter cannot tell how to make a provider from it.
    const model = aiSdk.create({ model: "@ai-sdk/provider:any", env: {}, baseURL: server.url });
    const run = await collectModelEvents(model, { ...hello, signal: new AbortController().signal });
    expect(run.terminal).toMatchObject({ type: "error", error: { retryable: false } });
    if (run.terminal.type === "error")
      expect(run.terminal.error.message).toMatch(/cannot tell which export of @ai-sdk\/provider/);
    expect(server.requests).toHaveLength(0);
  });

  it("names a default model that has a row in its table", () => {
    expect(aiSdk.models[aiSdk.defaultModel]).toBeDefined();
  });
});
