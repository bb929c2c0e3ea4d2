import { fileURLToPath } from "node:url";
import { textOf, toolCallsOf } from "@bridle/core";
import { anthropicMessagesFormat, type ModelRun, replayRecordedStream } from "@bridle/testing";
import { describeWithSharedFixtures } from "@bridle/testing/vitest";
import { describe, expect, it } from "vitest";
import { createAnthropicModel } from "../src/index.js";

const ownStreams = fileURLToPath(new URL("./fixtures/streams/", import.meta.url));

async function replay(file: string, dir: string): Promise<ModelRun> {
  const { runs } = await replayRecordedStream({
    dir,
    file,
    format: anthropicMessagesFormat,
    createModel: (baseURL) =>
      createAnthropicModel({ model: "claude-replay", apiKey: "k", baseURL, retry: { maxRetries: 0 } }),
  });
  expect(runs).toHaveLength(1);
  return runs[0] as ModelRun;
}

function done(run: ModelRun) {
  if (run.terminal.type !== "done") throw new Error(`expected done, got ${JSON.stringify(run.terminal)}`);
  return run.terminal;
}

// Short streams written here in the recorded format: they always run, in any clone.
describe("own recorded Anthropic streams (test/fixtures)", () => {
  it("text, then a tool call whose JSON arrives in pieces; cache reads and writes added into input", async () => {
    const run = await replay("text-then-tool.chunks.txt", ownStreams);
    const turn = done(run);
    expect(textOf(turn.message.content)).toBe("Reading the config first.");
    expect(run.text).toBe("Reading the config first.");
    expect(toolCallsOf(turn.message)).toEqual([
      { type: "tool_call", id: "toolu_own_1", name: "read_file", arguments: '{"path": "config.yaml"}' },
    ]);
    expect(turn.stopReason).toBe("tool_use");
    expect(turn.usage).toEqual({
      inputTokens: 40 + 200 + 10,
      outputTokens: 31,
      cacheReadTokens: 200,
      cacheWriteTokens: 10,
      reasoningTokens: 0,
    });
  });

  it("a refusal with no content", async () => {
    const turn = done(await replay("refusal.chunks.txt", ownStreams));
    expect(turn.stopReason).toBe("refusal");
    expect(turn.message.content).toEqual([]);
  });
});

// Streams recorded from the real API, published beside the checkout (shared/fixtures): CI has them, a
// user's clone does not, and there this suite reports itself skipped with the reason.
describeWithSharedFixtures("provider-streams", "recorded Anthropic streams (shared/fixtures)", (root) => {
  const dir = `${root}/anthropic-messages`;
  it("plain text", async () => {
    const run = await replay("anthropic-text.chunks.txt", dir);
    const turn = done(run);
    expect(textOf(turn.message.content)).toBe(
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
    );
    expect(run.text).toBe(textOf(turn.message.content));
    expect(turn.stopReason).toBe("end_turn");
    expect(turn.usage).toEqual({
      inputTokens: 12,
      outputTokens: 30,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
  });

  it("a JSON tool call", async () => {
    const turn = done(await replay("anthropic-json-tool.1.chunks.txt", dir));
    expect(turn.stopReason).toBe("tool_use");
    expect(toolCallsOf(turn.message)).toEqual([
      {
        type: "tool_call",
        id: "toolu_01KFbKqPYSuAKujiL6mTfzYA",
        name: "json",
        arguments: '{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}',
      },
    ]);
    expect(turn.usage.inputTokens).toBe(849);
    expect(turn.usage.outputTokens).toBe(47);
  });

  it("a tool call with no arguments, after text", async () => {
    const turn = done(await replay("anthropic-tool-no-args.chunks.txt", dir));
    expect(textOf(turn.message.content)).toBe("I'll update the issue list for you.");
    expect(toolCallsOf(turn.message)).toEqual([
      { type: "tool_call", id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", arguments: "{}" },
    ]);
  });

  it("a signed thinking block kept for replay", async () => {
    const run = await replay("anthropic-clear-thinking.1.chunks.txt", dir);
    const turn = done(run);
    const [reasoning, text] = turn.message.content;
    expect(reasoning).toMatchObject({ type: "reasoning", provider: "anthropic" });
    if (reasoning?.type !== "reasoning") return;
    expect(reasoning.text).toBe(
      "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
    );
    expect(reasoning.blob).toMatchObject({ signature: expect.stringMatching(/^EvQBCkYICxgCKkAx/) });
    expect(run.reasoning).toBe(reasoning.text);
    expect(text).toEqual({ type: "text", text: "925 ÷ 5 = 185" });
  });

  it("input tokens given late in message_delta", async () => {
    const turn = done(await replay("anthropic-message-delta-input-tokens.chunks.txt", dir));
    expect(textOf(turn.message.content)).toBe("pong");
    expect(turn.usage).toMatchObject({ inputTokens: 61, outputTokens: 2 });
  });

  it("prompt-cache usage added into input tokens, server tool blocks left out", async () => {
    const turn = done(await replay("anthropic-code-execution-20260120-prompt-cache.1.chunks.txt", dir));
    expect(textOf(turn.message.content)).toBe(
      "The sum of the squares of the numbers 1 through 12 is **650**.",
    );
    expect(toolCallsOf(turn.message)).toEqual([]);
    expect(turn.stopReason).toBe("end_turn");
    expect(turn.usage).toEqual({
      inputTokens: 6 + 6289 + 3337,
      outputTokens: 198,
      cacheReadTokens: 6289,
      cacheWriteTokens: 3337,
      reasoningTokens: 0,
    });
  });

  it("prices that usage with the recording model's row, reads and writes at their own rates", async () => {
    const turn = done(await replay("anthropic-code-execution-20260120-prompt-cache.1.chunks.txt", dir));
    const model = createAnthropicModel({ model: "claude-sonnet-5", apiKey: "k" });
    const price = model.info?.price;
    if (!price?.cacheRead || !price.cacheWrite) throw new Error("claude-sonnet-5 has no cache prices");
    expect(price.cacheRead).toBeLessThan(price.input);
    const expected =
      (6 * price.input + 6289 * price.cacheRead + 3337 * price.cacheWrite + 198 * price.output) / 1e6;
    expect(model.cost(turn.usage)).toBeCloseTo(expected, 12);
  });

  it("a refusal", async () => {
    const turn = done(await replay("anthropic-refusal.chunks.txt", dir));
    expect(turn.stopReason).toBe("refusal");
    expect(turn.message.content).toEqual([]);
  });

  it("server-side compaction: the answer comes out and both iterations are counted", async () => {
    const turn = done(await replay("anthropic-compaction.1.chunks.txt", dir));
    expect(textOf(turn.message.content)).toMatch(
      /^Based on the conversation history, you asked me to summarize/,
    );
    expect(turn.usage).toMatchObject({ inputTokens: 60385 + 612, outputTokens: 522 + 2819 });
  });

  it("a duplicated message_start still gives the one correct turn", async () => {
    const turn = done(await replay("duplicate-message-start.chunks.txt", dir));
    expect(turn.message.content).toEqual([{ type: "text", text: "Hello, World!" }]);
    expect(turn.usage).toMatchObject({ inputTokens: 17, outputTokens: 227 });
  });

  it("a spliced message_start: the restarted message wins, the cut-off one is dropped", async () => {
    const turn = done(await replay("spliced-message-start.chunks.txt", dir));
    expect(turn.stopReason).toBe("tool_use");
    expect(turn.message.content).toEqual([
      {
        type: "reasoning",
        text: "Let me call the tool.",
        provider: "anthropic",
        blob: { signature: "sig-second" },
      },
      { type: "tool_call", id: "toolu_second", name: "test-tool", arguments: '{"value":"Sparkle Day"}' },
    ]);
  });
});
