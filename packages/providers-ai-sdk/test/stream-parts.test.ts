import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import type { Message } from "@bridle/core";
import { collectModelEvents } from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { createAISDKModel } from "../src/index.js";

const usage = {
  inputTokens: { total: 10, noCache: 4, cacheRead: 2, cacheWrite: 4 },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/**
 * A language model written to the v4 specification, streaming parts no HTTP package in the tests sends
 * (provider-run tools, raw-text tool input, reasoning with provider metadata); it keeps every call's options.
 */
function specModel(
  parts: readonly LanguageModelV4StreamPart[],
): LanguageModelV4 & { calls: LanguageModelV4CallOptions[] } {
  const calls: LanguageModelV4CallOptions[] = [];
  return {
    specificationVersion: "v4",
    provider: "spec",
    modelId: "spec-1",
    supportedUrls: {},
    calls,
    doGenerate: () => Promise.reject(new Error("the adapter streams")),
    doStream: async (options) => {
      calls.push(options);
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

const prompt: Message[] = [{ role: "user", content: [{ type: "text", text: "go" }] }];
const signal = () => new AbortController().signal;

describe("stream parts of the v4 specification", () => {
  it("keeps reasoning metadata as the replay blob and sends it back as provider options to the same model", async () => {
    const metadata = { anthropic: { signature: "sig-1" } };
    const model = specModel([
      { type: "stream-start", warnings: [] },
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "think" },
      { type: "reasoning-end", id: "r", providerMetadata: metadata },
      { type: "text-delta", id: "t", delta: "answer" },
      { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } },
    ]);
    const adapter = createAISDKModel({ model });
    const run = await collectModelEvents(adapter, { messages: prompt, tools: [], signal: signal() });
    expect(run.terminal).toMatchObject({
      type: "done",
      usage: {
        inputTokens: 10,
        outputTokens: 5,
        cacheReadTokens: 2,
        cacheWriteTokens: 4,
        reasoningTokens: 0,
      },
      message: {
        content: [
          { type: "reasoning", text: "think", blob: metadata },
          { type: "text", text: "answer" },
        ],
      },
    });
    if (run.terminal.type !== "done") return;
    await collectModelEvents(adapter, {
      messages: [
        ...prompt,
        run.terminal.message,
        { role: "user", content: [{ type: "text", text: "more" }] },
      ],
      tools: [],
      signal: signal(),
    });
    expect(model.calls[1]?.prompt[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "think", providerOptions: metadata },
        { type: "text", text: "answer" },
      ],
    });
  });

  it("leaves out calls the provider runs itself and takes raw-text tool input from the final call", async () => {
    const model = specModel([
      { type: "tool-input-start", id: "search", toolName: "web_search", providerExecuted: true },
      { type: "tool-input-delta", id: "search", delta: '{"q":"x"}' },
      {
        type: "tool-call",
        toolCallId: "search",
        toolName: "web_search",
        input: '{"q":"x"}',
        providerExecuted: true,
      },
      { type: "tool-input-start", id: "patch", toolName: "apply_patch", inputEncoding: "text" },
      { type: "tool-input-delta", id: "patch", delta: "*** Begin Patch" },
      {
        type: "tool-call",
        toolCallId: "patch",
        toolName: "apply_patch",
        input: '{"input":"*** Begin Patch"}',
      },
      { type: "finish", usage, finishReason: { unified: "tool-calls", raw: undefined } },
    ]);
    const run = await collectModelEvents(createAISDKModel({ model }), {
      messages: prompt,
      tools: [],
      signal: signal(),
    });
    expect(run.terminal).toMatchObject({
      type: "done",
      stopReason: "tool_use",
      message: {
        content: [
          { type: "tool_call", id: "patch", name: "apply_patch", arguments: '{"input":"*** Begin Patch"}' },
        ],
      },
    });
    expect(run.argumentsByIndex.get(0)).toBe('{"input":"*** Begin Patch"}');
  });

  it("ends a stream the provider says was interrupted with an error carrying the usage, never a done", async () => {
    const model = specModel([
      { type: "text-delta", id: "t", delta: "partial" },
      { type: "finish", usage, finishReason: { unified: "interrupted", raw: undefined } },
    ]);
    const run = await collectModelEvents(createAISDKModel({ model }), {
      messages: prompt,
      tools: [],
      signal: signal(),
    });
    expect(run.terminal).toMatchObject({
      type: "error",
      error: { code: "bad_response", retryable: false },
      usage: { inputTokens: 10 },
    });
  });

  it("holds the package's warnings until the first output, and says them once", async () => {
    const model = specModel([
      {
        type: "stream-start",
        warnings: [{ type: "unsupported", feature: "topK", details: "use temperature" }],
      },
      { type: "text-delta", id: "t", delta: "ok" },
      { type: "finish", usage, finishReason: { unified: "stop", raw: undefined } },
    ]);
    const adapter = createAISDKModel({
      model,
      models: {
        "spec-1": {
          contextWindow: 1000,
          maxOutputTokens: 100,
          capabilities: { images: false, reasoning: false, structuredOutput: false },
          checked: "2026-12-07",
        },
      },
    });
    const first = await collectModelEvents(adapter, { messages: prompt, tools: [], signal: signal() });
    const second = await collectModelEvents(adapter, { messages: prompt, tools: [], signal: signal() });
    const said = (events: typeof first.events) =>
      events.flatMap((event) => (event.type === "warning" ? [event.warning.message] : []));
    expect(said(first.events)).toContain("ai-sdk model spec-1: topK is not supported (use temperature)");
    expect(first.events.map((event) => event.type).indexOf("warning")).toBeLessThan(
      first.events.map((event) => event.type).indexOf("text_delta"),
    );
    expect(said(second.events)).toEqual([]);
  });
});
