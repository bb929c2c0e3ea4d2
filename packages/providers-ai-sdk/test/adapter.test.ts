import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { Message, ModelRequest } from "@bridle/core";
import { collectModelEvents, FakeProviderServer, openaiChatFormat } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAISDKModel } from "../src/index.js";

let server: FakeProviderServer;
beforeEach(async () => {
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
});

function model(options: { structuredOutputs?: boolean } = {}) {
  const provider = createOpenAICompatible({
    name: "local",
    baseURL: openaiChatFormat.baseUrl(server.url),
    apiKey: "test-key",
    includeUsage: true,
    ...(options.structuredOutputs === undefined
      ? {}
      : { supportsStructuredOutputs: options.structuredOutputs }),
  });
  return createAISDKModel({
    model: provider.chatModel("qwen3"),
    name: "local:qwen3",
    retry: { maxRetries: 0 },
  });
}

const readTool = {
  name: "read_file",
  description: "Reads a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

function request(messages: readonly Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { messages, tools: [readTool], signal: new AbortController().signal, ...extra };
}

const user: Message = { role: "user", content: [{ type: "text", text: "what is in a.txt?" }] };

describe("an AI SDK provider package through the adapter", () => {
  it("streams reasoning, text and usage with cached tokens into one turn", async () => {
    server.enqueue({
      kind: "stream",
      events: openaiChatFormat.events({
        reasoning: "the user wants a greeting",
        text: "hello there",
        usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: 100, reasoningTokens: 12 },
      }),
    });
    const run = await collectModelEvents(model(), request([user]));
    expect(run.reasoning).toBe("the user wants a greeting");
    expect(run.text).toBe("hello there");
    expect(run.terminal).toMatchObject({
      type: "done",
      stopReason: "end_turn",
      usage: {
        inputTokens: 120,
        outputTokens: 30,
        cacheReadTokens: 100,
        cacheWriteTokens: 0,
        reasoningTokens: 12,
      },
      message: {
        role: "assistant",
        provider: "ai-sdk",
        model: "local:qwen3",
        content: [
          { type: "reasoning", text: "the user wants a greeting", provider: "ai-sdk" },
          { type: "text", text: "hello there" },
        ],
      },
    });
  });

  it("streams a tool call's arguments and sends the call and its result back on the next request", async () => {
    const args = '{"path":"a.txt"}';
    server.enqueue(
      {
        kind: "stream",
        events: openaiChatFormat.events({
          toolCalls: [{ id: "call_1", name: "read_file", arguments: args }],
          chunkSize: 4,
        }),
      },
      { kind: "stream", events: openaiChatFormat.events({ text: "it says hi" }) },
    );
    const first = await collectModelEvents(
      model(),
      request([user], { options: { toolChoice: "required", maxOutputTokens: 500, temperature: 0.2 } }),
    );
    expect(first.terminal).toMatchObject({ type: "done", stopReason: "tool_use" });
    expect(first.argumentsByIndex.get(0)).toBe(args);
    expect(first.events.filter((event) => event.type === "tool_call_delta").length).toBeGreaterThan(2);
    if (first.terminal.type !== "done") return;
    const sent = server.requests[0]?.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      model: "qwen3",
      stream: true,
      tool_choice: "required",
      max_tokens: 500,
      temperature: 0.2,
      tools: [{ type: "function", function: { name: "read_file", parameters: readTool.inputSchema } }],
    });
    const history: Message[] = [
      user,
      first.terminal.message,
      {
        role: "tool",
        toolCallId: "call_1",
        toolName: "read_file",
        content: [{ type: "text", text: "hi" }],
        isError: false,
      },
    ];
    const second = await collectModelEvents(model(), request(history, { system: "be brief" }));
    expect(second.text).toBe("it says hi");
    expect((server.requests[1]?.body as { messages: unknown[] } | undefined)?.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "what is in a.txt?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: args } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "hi" },
    ]);
  });

  it("says each setting it cannot send once, not on every turn", async () => {
    const once = model({ structuredOutputs: false });
    const options = {
      outputSchema: { name: "answer", schema: { type: "object", properties: { n: { type: "number" } } } },
      extra: { seed: 7, local: { user: "x" } },
    };
    server.enqueue(
      { kind: "stream", events: openaiChatFormat.events({ text: "{}" }) },
      { kind: "stream", events: openaiChatFormat.events({ text: "{}" }) },
    );
    const first = await collectModelEvents(once, request([user], { options }));
    const second = await collectModelEvents(once, request([user], { options }));
    const warnings = first.events.flatMap((event) =>
      event.type === "warning" ? [event.warning.message] : [],
    );
    expect(warnings.some((message) => message.includes("no row in the adapter's model table"))).toBe(true);
    expect(warnings.some((message) => message.includes("seed is not one and was not sent"))).toBe(true);
    // The package's own warning, from its stream-start part: it cannot send a JSON schema without structured outputs.
    expect(warnings.some((message) => /responseFormat/i.test(message))).toBe(true);
    expect(first.terminal.type).toBe("done");
    expect(second.terminal.type).toBe("done");
    expect(second.events.filter((event) => event.type === "warning")).toEqual([]);
    // The object-valued entry of `extra` went out as provider options, which this package sends in the body.
    expect(server.requests[0]?.body).toMatchObject({ user: "x" });
  });

  it("replays its own reasoning only to the same model, and another model's as tagged text", async () => {
    server.enqueue({ kind: "stream", events: openaiChatFormat.events({ text: "ok" }) });
    const history: Message[] = [
      user,
      {
        role: "assistant",
        provider: "anthropic",
        model: "claude-sonnet-4-6",
        content: [
          { type: "reasoning", text: "look at a.txt", provider: "anthropic", blob: "sig" },
          { type: "text", text: "reading" },
        ],
      },
      { role: "user", content: [{ type: "text", text: "go on" }] },
    ];
    const run = await collectModelEvents(model(), request(history));
    expect(run.terminal.type).toBe("done");
    const body = server.requests[0]?.body as { messages: { role: string; content: unknown }[] } | undefined;
    const messages = body?.messages ?? [];
    expect(messages[1]).toMatchObject({
      role: "assistant",
      content: "<thinking>\nlook at a.txt\n</thinking>reading",
    });
  });
});
