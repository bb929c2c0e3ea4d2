import { BridleError } from "@bridle/core";
import { anthropicMessagesFormat, FakeProviderServer } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicModel } from "../src/index.js";

let server: FakeProviderServer;
beforeEach(async () => {
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
});

describe("the Anthropic connection settings", () => {
  it.each(["127.0.0.1:8080/v1", "localhost:11434/v1", "ftp://example.com/v1", "not a url"])(
    "refuses the base URL %s before any request, saying how to write it",
    (baseURL) => {
      for (const create of [createAnthropicModel]) {
        let caught: unknown;
        try {
          create({ model: "claude-sonnet-4-6", apiKey: "k", baseURL });
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(BridleError);
        expect(caught).toMatchObject({ code: "invalid_config" });
        expect((caught as Error).message).toContain(`baseURL "${baseURL}" is not an http(s) URL`);
      }
    },
  );

  it("names ANTHROPIC_BASE_URL when the bad value came from it", () => {
    const saved = process.env.ANTHROPIC_BASE_URL;
    process.env.ANTHROPIC_BASE_URL = "localhost:8080/v1";
    try {
      expect(() => createAnthropicModel({ model: "claude-sonnet-4-6", apiKey: "k" })).toThrow(
        'ANTHROPIC_BASE_URL "localhost:8080/v1" is not an http(s) URL: write it with its scheme, such as http://localhost:8080/v1',
      );
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_BASE_URL;
      else process.env.ANTHROPIC_BASE_URL = saved;
    }
  });

  it("takes an http base URL and sends its requests there", async () => {
    server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events({ text: "ok" }) });
    const model = createAnthropicModel({
      model: "claude-sonnet-4-6",
      apiKey: "k",
      baseURL: anthropicMessagesFormat.baseUrl(server.url),
    });
    const events = [];
    for await (const event of model.stream({ messages: [], tools: [], signal: new AbortController().signal }))
      events.push(event);
    expect(events.at(-1)?.type).toBe("done");
    expect(server.requests).toHaveLength(1);
  });
});
