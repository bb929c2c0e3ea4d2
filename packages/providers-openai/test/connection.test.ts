import { BridleError } from "@bridle/core";
import { FakeProviderServer, openaiResponsesFormat } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIChatModel, createOpenAIResponsesModel } from "../src/index.js";

let server: FakeProviderServer;
beforeEach(async () => {
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
});

describe("the OpenAI connection settings", () => {
  it.each(["127.0.0.1:8080/v1", "localhost:11434/v1", "ftp://example.com/v1", "not a url"])(
    "refuses the base URL %s before any request, saying how to write it",
    (baseURL) => {
      for (const create of [createOpenAIResponsesModel, createOpenAIChatModel]) {
        let caught: unknown;
        try {
          create({ model: "gpt-5-mini", apiKey: "k", baseURL });
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(BridleError);
        expect(caught).toMatchObject({ code: "invalid_config" });
        expect((caught as Error).message).toContain(`baseURL "${baseURL}" is not an http(s) URL`);
      }
    },
  );

  it("names OPENAI_BASE_URL when the bad value came from it", () => {
    const saved = process.env.OPENAI_BASE_URL;
    process.env.OPENAI_BASE_URL = "localhost:8080/v1";
    try {
      expect(() => createOpenAIResponsesModel({ model: "gpt-5-mini", apiKey: "k" })).toThrow(
        'OPENAI_BASE_URL "localhost:8080/v1" is not an http(s) URL: write it with its scheme, such as http://localhost:8080/v1',
      );
    } finally {
      if (saved === undefined) delete process.env.OPENAI_BASE_URL;
      else process.env.OPENAI_BASE_URL = saved;
    }
  });

  it("takes an http base URL and sends its requests there", async () => {
    server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "ok" }) });
    const model = createOpenAIResponsesModel({
      model: "gpt-5-mini",
      apiKey: "k",
      baseURL: openaiResponsesFormat.baseUrl(server.url),
    });
    const events = [];
    for await (const event of model.stream({ messages: [], tools: [], signal: new AbortController().signal }))
      events.push(event);
    expect(events.at(-1)?.type).toBe("done");
    expect(server.requests).toHaveLength(1);
  });
});
