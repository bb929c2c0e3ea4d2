import { Harness, type Model, type ModelEvent, type ModelRequest } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { ATTR, EVENT } from "../src/index.js";
import { serverAttributes } from "../src/server-endpoint.js";
import { byName, memoryTracing } from "./fixtures.js";

/** A scripted model whose first request failed once and was retried, as provider-kit's loop reports it. */
function retriedOnce(inner: Model): Model {
  return {
    provider: inner.provider,
    model: inner.model,
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      yield {
        type: "retry",
        retry: {
          attempt: 2,
          maxAttempts: 5,
          delayMs: 400,
          error: { code: "server", message: "500 busy", retryable: true, status: 500 },
        },
      };
      yield* inner.stream(request);
    },
  };
}

describe("chat spans and the provider's server", () => {
  it("carry server.address and server.port of the provider's endpoint, and each retry as an event", async () => {
    const { tracer, spans } = memoryTracing({
      endpoints: { anthropic: "http://127.0.0.1:41234/v1", openai: "https://elsewhere.example" },
    });
    const model = retriedOnce(
      new ScriptedModel([{ text: "hi" }], { provider: "anthropic", model: "claude-test" }),
    );
    const result = await new Harness({ model, tools: [] }).run({ prompt: "hello", sink: tracer });
    expect(result.stopReason).toBe("completed");
    const [chat] = byName(spans(), "chat claude-test");
    expect(chat?.attributes).toMatchObject({ [ATTR.serverAddress]: "127.0.0.1", [ATTR.serverPort]: 41234 });
    const retry = chat?.events.find((event) => event.name === EVENT.modelRetry);
    expect(retry?.attributes).toMatchObject({
      "bridle.model_retry.attempt": 2,
      "bridle.model_retry.max_attempts": 5,
      "bridle.model_retry.delay_ms": 400,
      [ATTR.errorType]: "server",
    });
  });

  it("carry neither attribute for a provider whose endpoint it was not told", async () => {
    const { tracer, spans } = memoryTracing({ endpoints: { openai: "https://api.openai.com/v1" } });
    const model = new ScriptedModel([{ text: "hi" }], { provider: "anthropic", model: "claude-test" });
    await new Harness({ model, tools: [] }).run({ prompt: "hello", sink: tracer });
    const [chat] = byName(spans(), "chat claude-test");
    expect(chat?.attributes[ATTR.serverAddress]).toBeUndefined();
    expect(chat?.attributes[ATTR.serverPort]).toBeUndefined();
  });

  it.each([
    ["https://api.anthropic.com", { [ATTR.serverAddress]: "api.anthropic.com", [ATTR.serverPort]: 443 }],
    ["http://localhost/v1", { [ATTR.serverAddress]: "localhost", [ATTR.serverPort]: 80 }],
    ["http://[::1]:8080/v1", { [ATTR.serverAddress]: "::1", [ATTR.serverPort]: 8080 }],
    ["localhost:8080/v1", {}],
    ["not a url", {}],
  ])("reads %s as the convention's server attributes", (url, expected) => {
    expect(serverAttributes(url)).toEqual(expected);
  });
});
