import { defineTool, Harness, type Message } from "@bridle/core";
import { createOpenAIChatModel, createOpenAIResponsesModel } from "@bridle/providers-openai";
import {
  anthropicMessagesFormat,
  FakeProviderServer,
  openaiChatFormat,
  openaiResponsesFormat,
  tempWorkspace,
} from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAnthropicModel } from "../src/index.js";

const readNote = defineTool({
  name: "read_note",
  description: "Read a note by name",
  inputSchema: z.object({ name: z.string() }),
  execute: async ({ name }) => ({ content: name === "todo" ? "buy milk" : "no such note" }),
});

describe("a transcript begun on one provider continues on the other", () => {
  let openaiServer: FakeProviderServer;
  let anthropicServer: FakeProviderServer;
  let workspace: { dir: string; cleanup: () => Promise<void> };

  beforeEach(async () => {
    openaiServer = await FakeProviderServer.start();
    anthropicServer = await FakeProviderServer.start();
    workspace = await tempWorkspace();
  });
  afterEach(async () => {
    await Promise.all([openaiServer.close(), anthropicServer.close(), workspace.cleanup()]);
  });

  const openai = () =>
    createOpenAIResponsesModel({
      model: "gpt-5",
      apiKey: "k",
      baseURL: openaiResponsesFormat.baseUrl(openaiServer.url),
    });
  const anthropic = () =>
    createAnthropicModel({
      model: "claude-sonnet-4-5",
      apiKey: "k",
      baseURL: anthropicMessagesFormat.baseUrl(anthropicServer.url),
    });

  it("OpenAI Responses, then Anthropic: encrypted reasoning stays behind, the tool exchange carries over", async () => {
    openaiServer.enqueue(
      {
        kind: "stream",
        events: openaiResponsesFormat.events({
          reasoning: "The todo note should have it.",
          reasoningBlob: "enc-secret-openai",
          toolCalls: [{ id: "call_1", name: "read_note", arguments: '{"name":"todo"}' }],
        }),
      },
      { kind: "stream", events: openaiResponsesFormat.events({ text: "The note says: buy milk." }) },
    );
    const first = await new Harness({ model: openai(), tools: [readNote], workspace: workspace.dir }).run({
      prompt: "What is on my todo note?",
    });
    expect(first.stopReason).toBe("completed");
    expect(first.finalText).toBe("The note says: buy milk.");
    // The second OpenAI request replayed the reasoning item with its encrypted content.
    expect(JSON.stringify(openaiServer.requests[1]?.body)).toContain("enc-secret-openai");

    anthropicServer.enqueue({ kind: "stream", events: anthropicMessagesFormat.events({ text: "Milk." }) });
    const second = await new Harness({ model: anthropic(), tools: [readNote], workspace: workspace.dir }).run(
      {
        prompt: "Say it in one word.",
        history: first.messages,
      },
    );
    expect(second.stopReason).toBe("completed");
    expect(second.finalText).toBe("Milk.");
    const body = anthropicServer.requests[0]?.body as {
      messages: Array<{ role: string; content: unknown[] }>;
    };
    expect(JSON.stringify(body)).not.toContain("enc-secret-openai");
    expect(body.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    expect(body.messages[1]?.content).toEqual([
      { type: "text", text: "<thinking>\nThe todo note should have it.\n</thinking>" },
      { type: "tool_use", id: "call_1", name: "read_note", input: { name: "todo" } },
    ]);
    expect(body.messages[2]?.content).toMatchObject([
      { type: "tool_result", tool_use_id: "call_1", content: [{ type: "text", text: "buy milk" }] },
    ]);
  });

  it("Anthropic, then OpenAI (Responses and Chat Completions): signed thinking stays behind", async () => {
    anthropicServer.enqueue(
      {
        kind: "stream",
        events: anthropicMessagesFormat.events({
          reasoning: "Read the todo note.",
          reasoningBlob: "sig-secret-anthropic",
          toolCalls: [{ id: "toolu_1", name: "read_note", arguments: '{"name":"todo"}' }],
        }),
      },
      { kind: "stream", events: anthropicMessagesFormat.events({ text: "It says buy milk." }) },
    );
    const first = await new Harness({ model: anthropic(), tools: [readNote], workspace: workspace.dir }).run({
      prompt: "What is on my todo note?",
    });
    expect(first.stopReason).toBe("completed");
    const replayed = anthropicServer.requests[1]?.body as { messages: Array<{ content: unknown[] }> };
    expect(replayed.messages[1]?.content[0]).toEqual({
      type: "thinking",
      thinking: "Read the todo note.",
      signature: "sig-secret-anthropic",
    });

    openaiServer.enqueue(
      { kind: "stream", events: openaiResponsesFormat.events({ text: "Milk." }) },
      { kind: "stream", events: openaiChatFormat.events({ text: "Milk." }) },
    );
    const history: readonly Message[] = first.messages;
    const viaResponses = await new Harness({
      model: openai(),
      tools: [readNote],
      workspace: workspace.dir,
    }).run({
      prompt: "One word?",
      history,
    });
    expect(viaResponses.finalText).toBe("Milk.");
    const responsesBody = openaiServer.requests[0]?.body as { input: Array<Record<string, unknown>> };
    expect(JSON.stringify(responsesBody)).not.toContain("sig-secret-anthropic");
    expect(responsesBody.input.slice(1, 4)).toEqual([
      { role: "assistant", content: "<thinking>\nRead the todo note.\n</thinking>" },
      { type: "function_call", call_id: "toolu_1", name: "read_note", arguments: '{"name":"todo"}' },
      { type: "function_call_output", call_id: "toolu_1", output: "buy milk" },
    ]);

    const chat = createOpenAIChatModel({
      model: "llama",
      apiKey: "k",
      baseURL: openaiChatFormat.baseUrl(openaiServer.url),
    });
    const viaChat = await new Harness({ model: chat, tools: [readNote], workspace: workspace.dir }).run({
      prompt: "One word?",
      history,
    });
    expect(viaChat.finalText).toBe("Milk.");
    const chatBody = openaiServer.requests[1]?.body as { messages: Array<Record<string, unknown>> };
    expect(JSON.stringify(chatBody)).not.toContain("sig-secret-anthropic");
    expect(chatBody.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
  });
});
