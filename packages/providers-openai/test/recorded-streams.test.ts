import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Model, textOf, toolCallsOf } from "@bridle/core";
import {
  type FakeWireFormat,
  type ModelRun,
  openaiChatFormat,
  openaiResponsesFormat,
  replayRecordedStream,
} from "@bridle/testing";
import { describeWithSharedFixtures } from "@bridle/testing/vitest";
import { describe, expect, it } from "vitest";
import { createOpenAIChatModel, createOpenAIResponsesModel } from "../src/index.js";

const ownStreams = fileURLToPath(new URL("./fixtures/streams/", import.meta.url));
const noRetry = { maxRetries: 0 };

/** Replays `root/folder/file`: `root` is this package's own fixtures or the shared recordings. */
async function replay(
  format: FakeWireFormat,
  root: string,
  folder: string,
  file: string,
): Promise<readonly ModelRun[]> {
  const createModel = (baseURL: string): Model =>
    format.name === "openai-chat"
      ? createOpenAIChatModel({ model: "replay", apiKey: "k", baseURL, retry: noRetry })
      : createOpenAIResponsesModel({ model: "replay", apiKey: "k", baseURL, retry: noRetry });
  const { runs } = await replayRecordedStream({ dir: join(root, folder), file, format, createModel });
  return runs;
}

function done(run: ModelRun | undefined) {
  if (run?.terminal.type !== "done") throw new Error(`expected done, got ${JSON.stringify(run?.terminal)}`);
  return run.terminal;
}

type Json = Record<string, unknown> & { type?: string };

/** The provider's own end-of-response summary of each response in a Responses recording. */
function responsesOracle(root: string, file: string) {
  const lines = readFileSync(join(root, "openai-responses", file), "utf8")
    .split("\n")
    .filter(Boolean);
  const responses: Array<{ texts: string[]; calls: Json[]; usage: Json }> = [];
  for (const line of lines) {
    const event = JSON.parse(line) as Json;
    if (event.type === "response.created") responses.push({ texts: [], calls: [], usage: {} });
    const current = responses.at(-1);
    if (!current) continue;
    const item = event.item as Json | undefined;
    if (event.type === "response.output_item.done" && item?.type === "message") {
      for (const part of item.content as Json[]) current.texts.push(part.text as string);
    }
    if (event.type === "response.output_item.done" && item?.type === "function_call")
      current.calls.push(item);
    // A custom (free-form) tool call reaches the tool as `{ input: text }` (core's ToolInputFormat).
    if (event.type === "response.output_item.done" && item?.type === "custom_tool_call")
      current.calls.push({ ...item, arguments: JSON.stringify({ input: item.input }) });
    if (event.type === "response.completed") current.usage = (event.response as Json).usage as Json;
  }
  return responses;
}

// Short streams written here in the recorded format: they always run, in any clone.
describe("own recorded streams (test/fixtures)", () => {
  it("Responses: text, a function call in pieces, and usage with cached and reasoning tokens", async () => {
    const [run, more] = await replay(
      openaiResponsesFormat,
      ownStreams,
      "openai-responses",
      "text-and-call.chunks.txt",
    );
    expect(more).toBeUndefined();
    const turn = done(run);
    expect(textOf(turn.message.content)).toBe("Listing the folder.");
    expect(run?.text).toBe("Listing the folder.");
    expect(toolCallsOf(turn.message)).toEqual([
      { type: "tool_call", id: "call_own_1", name: "list_dir", arguments: '{"path":"src"}' },
    ]);
    expect(turn.stopReason).toBe("tool_use");
    expect(turn.usage).toEqual({
      inputTokens: 120,
      outputTokens: 35,
      cacheReadTokens: 80,
      cacheWriteTokens: 0,
      reasoningTokens: 12,
    });
  });

  it("Responses: the error event becomes a classified, non-retryable quota error", async () => {
    const [run] = await replay(
      openaiResponsesFormat,
      ownStreams,
      "openai-responses",
      "quota-error.chunks.txt",
    );
    expect(run?.terminal).toMatchObject({
      type: "error",
      error: {
        code: "rate_limit",
        retryable: false,
        message: expect.stringMatching(/exceeded your current quota/),
      },
    });
  });

  it("Chat Completions: text, a tool call split over chunks, usage on a last chunk with no choices", async () => {
    const [run] = await replay(openaiChatFormat, ownStreams, "openai-chat", "split-tool-call.chunks.txt");
    const turn = done(run);
    expect(textOf(turn.message.content)).toBe("Checking the weather.");
    expect(toolCallsOf(turn.message)).toEqual([
      { type: "tool_call", id: "call_own_1", name: "weather", arguments: '{"city":"Oslo"}' },
    ]);
    expect(turn.stopReason).toBe("tool_use");
    expect(turn.usage).toEqual({
      inputTokens: 90,
      outputTokens: 22,
      cacheReadTokens: 64,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
  });
});

// Streams recorded from the real APIs, published beside the checkout (shared/fixtures): CI has them, a
// user's clone does not, and there these suites report themselves skipped with the reason.
describeWithSharedFixtures(
  "provider-streams",
  "recorded OpenAI Responses streams (shared/fixtures)",
  (root) => {
    const ordinary = [
      "openai-reasoning-encrypted-content.1.chunks.txt",
      "openai-phase.1.chunks.txt",
      "openai-compaction.1.chunks.txt",
      "openai-shell-tool.1.chunks.txt",
      "openai-local-shell-tool.1.chunks.txt",
      "openai-custom-tool.1.chunks.txt",
      "openai-apply-patch-tool.1.chunks.txt",
    ];
    it.each(ordinary)("%s: text, function calls and usage match the provider's own summary", async (file) => {
      const runs = await replay(openaiResponsesFormat, root, "openai-responses", file);
      const oracle = responsesOracle(root, file);
      expect(runs).toHaveLength(oracle.length);
      runs.forEach((run, i) => {
        const turn = done(run);
        const expected = oracle[i];
        if (!expected) throw new Error("oracle missing");
        expect(turn.message.content.filter((part) => part.type === "text").map((part) => part.text)).toEqual(
          expected.texts,
        );
        // The phase recording streams fewer deltas than its final text holds; the turn follows the final text.
        if (file !== "openai-phase.1.chunks.txt") expect(run.text).toBe(expected.texts.join(""));
        expect(
          toolCallsOf(turn.message).map(({ id, name, arguments: args }) => ({ id, name, args })),
        ).toEqual(
          expected.calls.map((call) => ({ id: call.call_id, name: call.name, args: call.arguments })),
        );
        expect(turn.stopReason).toBe(expected.calls.length > 0 ? "tool_use" : "end_turn");
        const usage = expected.usage as {
          input_tokens: number;
          output_tokens: number;
          input_tokens_details: { cached_tokens: number };
          output_tokens_details: { reasoning_tokens: number };
        };
        expect(turn.usage).toEqual({
          inputTokens: usage.input_tokens,
          outputTokens: usage.output_tokens,
          cacheReadTokens: usage.input_tokens_details.cached_tokens,
          cacheWriteTokens: 0,
          reasoningTokens: usage.output_tokens_details.reasoning_tokens,
        });
      });
    });

    it("keeps the reasoning summary and its encrypted content for replay", async () => {
      const [first] = await replay(
        openaiResponsesFormat,
        root,
        "openai-responses",
        "openai-reasoning-encrypted-content.1.chunks.txt",
      );
      const turn = done(first);
      const reasoning = turn.message.content[0];
      expect(reasoning).toMatchObject({ type: "reasoning", provider: "openai" });
      if (reasoning?.type !== "reasoning") return;
      expect(reasoning.text).toMatch(/^\*\*Calculating step-by-step using calculator\*\*/);
      expect(first?.reasoning).toBe(reasoning.text);
      expect(reasoning.blob).toMatchObject({
        id: "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
        encryptedContent: expect.stringMatching(/^gAAAAABpPDIV/),
      });
    });

    it("turns the error event into a classified, non-retryable quota error", async () => {
      const [run] = await replay(
        openaiResponsesFormat,
        root,
        "openai-responses",
        "openai-error.1.chunks.txt",
      );
      expect(run?.terminal).toMatchObject({
        type: "error",
        error: {
          code: "rate_limit",
          retryable: false,
          message: expect.stringMatching(/exceeded your current quota/),
        },
      });
    });

    it("ends the stream whose first and last events are cut short with a bad_response error", async () => {
      const [run] = await replay(
        openaiResponsesFormat,
        root,
        "openai-responses",
        "parallel-tool-call-wrapper.1.chunks.txt",
      );
      expect(run?.terminal).toMatchObject({ type: "error", error: { code: "bad_response" } });
    });
  },
);

describeWithSharedFixtures(
  "provider-streams",
  "recorded Chat Completions streams (shared/fixtures)",
  (root) => {
    it("OpenAI text", async () => {
      const lines = readFileSync(join(root, "openai-chat", "openai-text.chunks.txt"), "utf8").split("\n");
      const expected = lines
        .filter(Boolean)
        .map(
          (line) =>
            (JSON.parse(line) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta
              .content ?? "",
        )
        .join("");
      const turn = done((await replay(openaiChatFormat, root, "openai-chat", "openai-text.chunks.txt"))[0]);
      expect(textOf(turn.message.content)).toBe(expected);
      expect(turn.usage).toEqual({
        inputTokens: 16,
        outputTokens: 300,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      });
      expect(turn.stopReason).toBe("end_turn");
    });

    it("Azure model router: a filter-results chunk with no choices first", async () => {
      const turn = done(
        (await replay(openaiChatFormat, root, "openai-chat", "azure-model-router.1.chunks.txt"))[0],
      );
      expect(textOf(turn.message.content)).toMatch(/^Capital/);
      expect(turn.usage).toEqual({
        inputTokens: 15,
        outputTokens: 78,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 64,
      });
    });

    it("DeepSeek: reasoning_content, then a tool call, cached prompt tokens", async () => {
      const run = (await replay(openaiChatFormat, root, "openai-chat", "deepseek-tool-call.chunks.txt"))[0];
      const turn = done(run);
      const reasoning = turn.message.content[0];
      expect(reasoning).toMatchObject({ type: "reasoning", blob: { field: "reasoning_content" } });
      expect(run?.reasoning).toMatch(/^The user is/);
      const [call] = toolCallsOf(turn.message);
      expect(call?.name).toBeTruthy();
      expect(() => JSON.parse(call?.arguments ?? "")).not.toThrow();
      expect(turn.stopReason).toBe("tool_use");
      expect(turn.usage).toEqual({
        inputTokens: 339,
        outputTokens: 83,
        cacheReadTokens: 320,
        cacheWriteTokens: 0,
        reasoningTokens: 39,
      });
    });

    it("Groq: a whole tool call in one chunk, usage on the finishing chunk", async () => {
      const turn = done(
        (await replay(openaiChatFormat, root, "openai-chat", "groq-tool-call.chunks.txt"))[0],
      );
      expect(toolCallsOf(turn.message)).toEqual([
        { type: "tool_call", id: "tk85n1k4m", name: "weather", arguments: "{}" },
      ]);
      expect(turn.usage).toMatchObject({ inputTokens: 210, outputTokens: 15 });
    });

    it("Mistral-style incremental call: a later chunk with an empty name keeps the first name", async () => {
      const turn = done(
        (await replay(openaiChatFormat, root, "openai-chat", "mistral-incremental-tool-call.chunks.txt"))[0],
      );
      expect(toolCallsOf(turn.message)).toEqual([
        {
          type: "tool_call",
          id: "chatcmpl-tool-9f149c74c42f265b",
          name: "webSearchTool",
          arguments: '{"query": "current Berlin weather"}',
        },
      ]);
      expect(turn.usage).toMatchObject({ inputTokens: 171, outputTokens: 14, cacheReadTokens: 128 });
    });

    it("xAI: reasoning tokens reported beside completion tokens are added to output", async () => {
      const run = (await replay(openaiChatFormat, root, "openai-chat", "xai-tool-call.chunks.txt"))[0];
      const turn = done(run);
      expect(run?.reasoning.length).toBeGreaterThan(0);
      expect(toolCallsOf(turn.message).length).toBeGreaterThan(0);
      expect(turn.usage).toEqual({
        inputTokens: 307,
        outputTokens: 26 + 227,
        cacheReadTokens: 306,
        cacheWriteTokens: 0,
        reasoningTokens: 227,
      });
    });
  },
);
