import type { ModelOptions } from "@bridle/core";
import { FakeProviderServer, openaiChatFormat } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChatCompat, chatCompat, createOpenAIChatModel, toChatMessages } from "../src/index.js";
import { mixedTranscript } from "./transcript.js";

describe("Chat Completions requests", () => {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await FakeProviderServer.start();
    server.enqueue({ kind: "stream", events: openaiChatFormat.events({ text: "ok" }) });
  });
  afterEach(() => server.close());

  const send = async (compat: ChatCompat = {}, options: ModelOptions = {}, provider?: string) => {
    const model = createOpenAIChatModel({
      model: "m",
      apiKey: "k",
      baseURL: `${server.url}/v1`,
      compat,
      ...(provider ? { provider } : {}),
    });
    for await (const _ of model.stream({
      system: "Be terse.",
      messages: mixedTranscript,
      tools: [{ name: "read_file", description: "Read a file", inputSchema: { type: "object" } }],
      options,
      signal: new AbortController().signal,
    })) {
      // drain
    }
    return server.requests[0]?.body as Record<string, unknown>;
  };

  it("sends tool calls, tool results, images after the results, and merges the notice into that user turn", async () => {
    const body = await send();
    expect(body).toMatchObject({
      model: "m",
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: "function",
          function: { name: "read_file", description: "Read a file", parameters: { type: "object" } },
        },
      ],
    });
    expect(body.messages).toEqual([
      { role: "system", content: "Be terse." },
      { role: "user", content: "List the repo and read the README." },
      {
        role: "assistant",
        content:
          "<thinking>\nI should list first.\n</thinking>\n\n<thinking>\nClaude thought this.\n</thinking>\n\nLooking.",
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "list_dir", arguments: '{"path":"."}' } },
          {
            id: "call_b",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"README.md"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "README.md\nsrc/" },
      { role: "tool", tool_call_id: "call_b", content: "NotFound: README.md" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by the tool calls above:" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "text", text: "[harness notice] 2 model requests remain." },
        ],
      },
    ]);
  });

  it("applies a server's differences: max_tokens, developer role, no reasoning_effort", async () => {
    const body = await send(
      { ...chatCompat.vllm, systemRole: "developer" },
      { maxOutputTokens: 64, reasoning: { effort: "low" } },
    );
    expect(body.max_tokens).toBe(64);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.reasoning_effort).toBeUndefined();
    expect((body.messages as Array<{ role: string }>)[0]?.role).toBe("developer");
  });

  it("defaults to OpenAI's fields", async () => {
    const body = await send(
      {},
      { maxOutputTokens: 64, reasoning: { effort: "low" }, toolChoice: "required" },
    );
    expect(body).toMatchObject({
      max_completion_tokens: 64,
      reasoning_effort: "low",
      tool_choice: "required",
    });
  });

  it("replays its own reasoning in the field a server asks for", async () => {
    server.requests.length = 0;
    const history = [
      { role: "user" as const, content: [{ type: "text" as const, text: "hi" }] },
      {
        role: "assistant" as const,
        content: [
          {
            type: "reasoning" as const,
            text: "thinking…",
            provider: "deepseek",
            blob: { field: "reasoning_content" },
          },
          { type: "tool_call" as const, id: "c1", name: "read_file", arguments: "{}" },
        ],
      },
      {
        role: "tool" as const,
        toolCallId: "c1",
        toolName: "read_file",
        isError: false,
        content: [{ type: "text" as const, text: "x" }],
      },
    ];
    const model = createOpenAIChatModel({
      model: "deepseek-reasoner",
      apiKey: "k",
      baseURL: `${server.url}/v1`,
      provider: "deepseek",
      compat: chatCompat.deepseek,
    });
    for await (const _ of model.stream({
      messages: history,
      tools: [],
      signal: new AbortController().signal,
    })) {
      // drain
    }
    const messages = (server.requests[0]?.body as { messages?: Array<Record<string, unknown>> } | undefined)
      ?.messages;
    expect(messages?.[1]).toMatchObject({ role: "assistant", content: null, reasoning_content: "thinking…" });
  });

  it("sends the same messages on every request of a model, images and degraded reasoning included", async () => {
    // One model across turns converts each transcript message once; every request must still carry all of
    // them, the image follow-up and the <thinking> text of another provider's reasoning each time.
    for (let i = 0; i < 3; i++) {
      server.enqueue({ kind: "stream", events: openaiChatFormat.events({ text: "ok" }) });
    }
    const model = createOpenAIChatModel({ model: "m", apiKey: "k", baseURL: `${server.url}/v1` });
    const followUp = { role: "user" as const, content: [{ type: "text" as const, text: "Go on." }] };
    const transcripts = [mixedTranscript, mixedTranscript, [...mixedTranscript, followUp]];
    for (const messages of transcripts) {
      for await (const _ of model.stream({ messages, tools: [], signal: new AbortController().signal })) {
        // drain
      }
    }
    const sent = server.requests.map((request) => (request.body as { messages: unknown[] }).messages);
    const fresh = toChatMessages(undefined, mixedTranscript, "openai-chat", {}, "m");
    expect(sent[0]).toEqual(fresh);
    expect(sent[1]).toEqual(fresh);
    expect(sent[2]).toEqual(toChatMessages(undefined, transcripts[2] ?? [], "openai-chat", {}, "m"));
    expect(JSON.stringify(sent[2])).toContain("<thinking>");
    expect(JSON.stringify(sent[2])).toContain("data:image/png;base64,iVBORw0KGgo=");
    // Posted as JSON text (each kept message encoded once), with the SDK's headers as create() sends them.
    for (const request of server.requests) {
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers.authorization).toBe("Bearer k");
      expect(request.body).toMatchObject({
        model: "m",
        stream: true,
        stream_options: { include_usage: true },
      });
    }
  });
});
