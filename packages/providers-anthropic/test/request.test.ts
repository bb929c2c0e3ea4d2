import type { Message, ModelOptions } from "@bridle/core";
import { anthropicMessagesFormat, FakeProviderServer } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicModel, toAnthropicMessages } from "../src/index.js";

const transcript: readonly Message[] = [
  { role: "user", content: [{ type: "text", text: "Read the README." }] },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Plan: read it.", provider: "anthropic", blob: { signature: "sig-1" } },
      { type: "reasoning", text: "", provider: "anthropic", redacted: true, blob: { data: "redacted-blob" } },
      {
        type: "reasoning",
        text: "GPT thought this.",
        provider: "openai",
        blob: { id: "rs", encryptedContent: "e" },
      },
      { type: "text", text: "" },
      { type: "tool_call", id: "toolu_1", name: "read_file", arguments: '{"path":"README.md"}' },
      { type: "tool_call", id: "toolu_2", name: "read_file", arguments: "not json" },
    ],
  },
  {
    role: "tool",
    toolCallId: "toolu_1",
    toolName: "read_file",
    isError: false,
    content: [{ type: "text", text: "# Hello" }],
  },
  {
    role: "tool",
    toolCallId: "toolu_2",
    toolName: "read_file",
    isError: true,
    errorKind: "InvalidInput",
    content: [{ type: "text", text: "InvalidInput: arguments are not JSON" }],
  },
  { role: "user", content: [{ type: "text", text: "[harness notice] 1 model request remains." }] },
  { role: "system", content: "Summary of earlier turns: none." },
];

describe("Anthropic requests", () => {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await FakeProviderServer.start();
    server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events({ text: "ok" }) });
  });
  afterEach(() => server.close());

  const send = async (options: ModelOptions = {}, promptCaching = true) => {
    const model = createAnthropicModel({
      model: "claude-sonnet-4-5",
      apiKey: "k",
      baseURL: server.url,
      promptCaching,
    });
    for await (const _ of model.stream({
      system: "Be terse.",
      messages: transcript,
      tools: [
        { name: "list_dir", description: "List", inputSchema: { type: "object", properties: {} } },
        {
          name: "read_file",
          description: "Read",
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

  it("alternates roles, puts tool results first, replays signed and redacted thinking, degrades foreign reasoning", async () => {
    const body = await send({}, false);
    expect(body.system).toEqual([
      { type: "text", text: "Be terse." },
      { type: "text", text: "Summary of earlier turns: none." },
    ]);
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Read the README." }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Plan: read it.", signature: "sig-1" },
          { type: "redacted_thinking", data: "redacted-blob" },
          { type: "text", text: "<thinking>\nGPT thought this.\n</thinking>" },
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "README.md" } },
          { type: "tool_use", id: "toolu_2", name: "read_file", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "# Hello" }] },
          {
            type: "tool_result",
            tool_use_id: "toolu_2",
            content: [{ type: "text", text: "InvalidInput: arguments are not JSON" }],
            is_error: true,
          },
          { type: "text", text: "[harness notice] 1 model request remains." },
        ],
      },
    ]);
    expect(body.max_tokens).toBe(8192);
  });

  it("marks the system prompt, the last tool and the latest user turns for caching, at most four breakpoints", async () => {
    const body = await send();
    const text = JSON.stringify(body);
    expect(text.match(/"cache_control"/g)).toHaveLength(4);
    const system = body.system as Array<Record<string, unknown>>;
    expect(system.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    const tools = body.tools as Array<Record<string, unknown>>;
    expect(tools[0]?.cache_control).toBeUndefined();
    expect(tools[1]?.cache_control).toEqual({ type: "ephemeral" });
    const messages = body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages[0]?.content.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(messages[2]?.content.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
  });

  it("turns a reasoning request into a thinking budget below max_tokens, without temperature", async () => {
    const body = await send({
      reasoning: { effort: "medium" },
      temperature: 0.5,
      maxOutputTokens: 4000,
      toolChoice: "required",
    });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(body.max_tokens as number).toBeGreaterThan(8192);
    expect(body.temperature).toBeUndefined();
    expect(body.tool_choice).toEqual({ type: "any" });
  });

  it("takes the key and base URL from ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL", async () => {
    const saved = { key: process.env.ANTHROPIC_API_KEY, url: process.env.ANTHROPIC_BASE_URL };
    process.env.ANTHROPIC_API_KEY = "env-key";
    process.env.ANTHROPIC_BASE_URL = server.url;
    try {
      const model = createAnthropicModel({ model: "claude-haiku-4-5" });
      const events = [];
      for await (const event of model.stream({
        messages: transcript.slice(0, 1),
        tools: [],
        signal: new AbortController().signal,
      })) {
        events.push(event);
      }
      expect(events.at(-1)?.type).toBe("done");
      // This SDK version sends the key as a bearer token; older ones used x-api-key.
      const headers = server.requests[0]?.headers ?? {};
      expect([headers["x-api-key"], headers.authorization]).toContain(
        headers["x-api-key"] ? "env-key" : "Bearer env-key",
      );
      expect(server.requests[0]?.path).toBe("/v1/messages");
    } finally {
      for (const [name, value] of [
        ["ANTHROPIC_API_KEY", saved.key],
        ["ANTHROPIC_BASE_URL", saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("starts with a user turn even when the history starts with the model", () => {
    const { messages } = toAnthropicMessages(
      undefined,
      [{ role: "assistant", content: [{ type: "text", text: "Earlier answer." }] }],
      "anthropic",
    );
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("prices usage with cache writes and reads at their own rates", () => {
    const model = createAnthropicModel({ model: "claude-sonnet-4-5-20250929", apiKey: "k" });
    const usage = {
      inputTokens: 3_000_000,
      cacheReadTokens: 1_000_000,
      cacheWriteTokens: 1_000_000,
      outputTokens: 1_000_000,
      reasoningTokens: 0,
    };
    expect(model.cost(usage)).toBeCloseTo(3 + 0.3 + 3.75 + 15, 6);
  });
});

describe("Anthropic usage on failure", () => {
  it("reports the input tokens of a stream cut off mid-answer with its error", async () => {
    const server = await FakeProviderServer.start();
    try {
      const events = anthropicMessagesFormat.events({
        text: "a long answer that is cut",
        chunkSize: 4,
        usage: { inputTokens: 500, cacheReadTokens: 300, outputTokens: 9 },
      });
      server.enqueue({ kind: "stream", events, dropAfter: 5 });
      const model = createAnthropicModel({
        model: "claude-haiku-4-5",
        apiKey: "k",
        baseURL: server.url,
        retry: { maxRetries: 0 },
      });
      let last: unknown;
      for await (const event of model.stream({
        messages: transcript.slice(0, 1),
        tools: [],
        signal: new AbortController().signal,
      })) {
        last = event;
      }
      expect(last).toMatchObject({
        type: "error",
        usage: { inputTokens: 500, cacheReadTokens: 300, cacheWriteTokens: 0 },
      });
    } finally {
      await server.close();
    }
  });
});
