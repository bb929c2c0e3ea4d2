import { userText } from "@bridle/core";
import { FakeProviderServer, openaiResponsesFormat } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIResponsesModel } from "../src/index.js";
import { mixedTranscript } from "./transcript.js";

describe("OpenAI Responses requests", () => {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await FakeProviderServer.start();
    server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "ok" }) });
  });
  afterEach(() => server.close());

  const send = async (
    model = createOpenAIResponsesModel({ model: "gpt-5", apiKey: "k", baseURL: `${server.url}/v1` }),
    options = {},
  ) => {
    for await (const _ of model.stream({
      system: "Be terse.",
      messages: mixedTranscript,
      tools: [
        {
          name: "read_file",
          description: "Read a file",
          inputSchema: { type: "object", properties: { path: { type: "string" } } },
        },
      ],
      options,
      signal: new AbortController().signal,
    })) {
      // drain
    }
    return server.requests[0]?.body as Record<string, unknown>;
  };

  it("sends the whole conversation statelessly, replaying its own reasoning and degrading another's", async () => {
    const body = await send();
    expect(body).toMatchObject({
      model: "gpt-5",
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
      instructions: "Be terse.",
      tools: [
        {
          type: "function",
          name: "read_file",
          description: "Read a file",
          parameters: { type: "object", properties: { path: { type: "string" } } },
          strict: false,
        },
      ],
    });
    expect(body.input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "List the repo and read the README." }] },
      {
        type: "reasoning",
        id: "rs_1",
        encrypted_content: "enc-1",
        summary: [{ type: "summary_text", text: "I should list first." }],
      },
      { role: "assistant", content: "<thinking>\nClaude thought this.\n</thinking>" },
      { role: "assistant", content: "Looking." },
      { type: "function_call", call_id: "call_a", name: "list_dir", arguments: '{"path":"."}' },
      { type: "function_call", call_id: "call_b", name: "read_file", arguments: '{"path":"README.md"}' },
      { type: "function_call_output", call_id: "call_a", output: "README.md\nsrc/" },
      {
        type: "function_call_output",
        call_id: "call_b",
        output: [
          { type: "input_text", text: "NotFound: README.md" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "auto" },
        ],
      },
      { role: "user", content: [{ type: "input_text", text: "[harness notice] 2 model requests remain." }] },
    ]);
  });

  it("maps model options to request fields", async () => {
    const body = await send(undefined, {
      maxOutputTokens: 500,
      temperature: 0.2,
      toolChoice: { name: "read_file" },
      reasoning: { effort: "high" },
      outputSchema: { name: "answer", schema: { type: "object" } },
    });
    expect(body).toMatchObject({
      max_output_tokens: 500,
      temperature: 0.2,
      tool_choice: { type: "function", name: "read_file" },
      reasoning: { effort: "high", summary: "auto" },
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: false } },
    });
  });

  it("takes the key and base URL from OPENAI_API_KEY and OPENAI_BASE_URL", async () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    process.env.OPENAI_API_KEY = "env-key";
    process.env.OPENAI_BASE_URL = `${server.url}/v1`;
    try {
      const model = createOpenAIResponsesModel({ model: "gpt-5" });
      const events = [];
      for await (const event of model.stream({
        messages: [userText("hi")],
        tools: [],
        signal: new AbortController().signal,
      })) {
        events.push(event);
      }
      expect(events.at(-1)?.type).toBe("done");
      expect(server.requests[0]?.headers.authorization).toBe("Bearer env-key");
    } finally {
      for (const [name, value] of [
        ["OPENAI_API_KEY", saved.key],
        ["OPENAI_BASE_URL", saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("prices usage from the built-in model table, extended by the user's rows", () => {
    const usage = {
      inputTokens: 2_000_000,
      cacheReadTokens: 1_000_000,
      cacheWriteTokens: 0,
      outputTokens: 1_000_000,
      reasoningTokens: 0,
    };
    const builtIn = createOpenAIResponsesModel({ model: "gpt-4o-2024-08-06", apiKey: "k" });
    expect(builtIn.cost(usage)).toBeCloseTo(2.5 + 1.25 + 10, 6);
    const custom = createOpenAIResponsesModel({
      model: "my-finetune",
      apiKey: "k",
      models: {
        "my-finetune": {
          contextWindow: 128_000,
          maxOutputTokens: 16_384,
          price: { input: 1, output: 1 },
          capabilities: { images: false, reasoning: false, structuredOutput: true },
          checked: "2026-11-24",
        },
      },
    });
    expect(custom.cost(usage)).toBeCloseTo(3, 6);
    expect(createOpenAIResponsesModel({ model: "unknown", apiKey: "k" }).cost(usage)).toBeUndefined();
  });
});
