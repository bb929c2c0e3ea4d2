import { userText } from "@bridle/core";
import { collectModelEvents, FakeProviderServer, jsonEvent, openaiResponsesFormat } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIResponsesModel } from "../src/index.js";

describe("OpenAI Responses streams", () => {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await FakeProviderServer.start();
  });
  afterEach(() => server.close());

  const run = () =>
    collectModelEvents(
      createOpenAIResponsesModel({
        model: "gpt-oss",
        apiKey: "k",
        baseURL: `${server.url}/v1`,
        retry: { initialDelayMs: 1, maxDelayMs: 2 },
      }),
      {
        messages: [userText("hi")],
        tools: [],
        signal: new AbortController().signal,
      },
    );

  it("keeps raw reasoning text (open-weight models) when there is no summary", async () => {
    const response = {
      id: "resp_1",
      object: "response",
      model: "gpt-oss",
      output: [],
      status: "in_progress",
    };
    const item = {
      type: "reasoning",
      id: "rs_1",
      summary: [],
      content: [{ type: "reasoning_text", text: "step one" }],
    };
    server.enqueue({
      kind: "stream",
      events: [
        jsonEvent({ type: "response.created", response }, true),
        jsonEvent(
          { type: "response.output_item.added", output_index: 0, item: { ...item, content: [] } },
          true,
        ),
        jsonEvent(
          {
            type: "response.reasoning_text.delta",
            item_id: "rs_1",
            output_index: 0,
            content_index: 0,
            delta: "step ",
          },
          true,
        ),
        jsonEvent(
          {
            type: "response.reasoning_text.delta",
            item_id: "rs_1",
            output_index: 0,
            content_index: 0,
            delta: "one",
          },
          true,
        ),
        jsonEvent({ type: "response.output_item.done", output_index: 0, item }, true),
        jsonEvent(
          { type: "response.completed", response: { ...response, status: "completed", usage: null } },
          true,
        ),
      ],
    });
    const result = await run();
    expect(result.reasoning).toBe("step one");
    expect(result.terminal).toMatchObject({
      type: "done",
      message: { content: [{ type: "reasoning", text: "step one", provider: "openai" }] },
    });
  });

  it("reports max_output_tokens as max_tokens and a failed response as a classified error", async () => {
    server.enqueue(
      { kind: "stream", events: openaiResponsesFormat.events({ text: "cut", stopReason: "max_tokens" }) },
      {
        kind: "stream",
        events: [
          jsonEvent(
            { type: "response.created", response: { id: "r", status: "in_progress", output: [] } },
            true,
          ),
          jsonEvent(
            {
              type: "response.failed",
              response: {
                id: "r",
                status: "failed",
                output: [],
                error: { code: "server_error", message: "boom" },
              },
            },
            true,
          ),
        ],
      },
    );
    expect((await run()).terminal).toMatchObject({ type: "done", stopReason: "max_tokens" });
    // server_error is retryable, but the fake has nothing more to serve: 599 ends the retries as a server error.
    expect((await run()).terminal).toMatchObject({
      type: "error",
      error: { code: "server", retryable: true },
    });
  });
});
