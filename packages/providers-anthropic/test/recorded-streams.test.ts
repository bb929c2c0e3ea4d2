import { textOf, toolCallsOf } from "@bridle/core";
import {
  anthropicMessagesFormat,
  type ModelRun,
  recordedStreamsDir,
  replayRecordedStream,
} from "@bridle/testing";
import { describe, expect, it } from "vitest";
import { createAnthropicModel } from "../src/index.js";

const root = recordedStreamsDir();
const dir = root && `${root}/anthropic-messages`;

async function replay(file: string): Promise<ModelRun> {
  if (!dir) throw new Error("no recorded streams");
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

// The recordings live beside the checkout (shared/fixtures); CI always has them.
describe.skipIf(!dir && !process.env.CI)("recorded Anthropic streams", () => {
  it("plain text", async () => {
    const run = await replay("anthropic-text.chunks.txt");
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
    const turn = done(await replay("anthropic-json-tool.1.chunks.txt"));
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
    const turn = done(await replay("anthropic-tool-no-args.chunks.txt"));
    expect(textOf(turn.message.content)).toBe("I'll update the issue list for you.");
    expect(toolCallsOf(turn.message)).toEqual([
      { type: "tool_call", id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", arguments: "{}" },
    ]);
  });

  it("a signed thinking block kept for replay", async () => {
    const run = await replay("anthropic-clear-thinking.1.chunks.txt");
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
    const turn = done(await replay("anthropic-message-delta-input-tokens.chunks.txt"));
    expect(textOf(turn.message.content)).toBe("pong");
    expect(turn.usage).toMatchObject({ inputTokens: 61, outputTokens: 2 });
  });

  it("prompt-cache usage added into input tokens, server tool blocks left out", async () => {
    const turn = done(await replay("anthropic-code-execution-20260120-prompt-cache.1.chunks.txt"));
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

  it("a refusal", async () => {
    const turn = done(await replay("anthropic-refusal.chunks.txt"));
    expect(turn.stopReason).toBe("refusal");
    expect(turn.message.content).toEqual([]);
  });

  it("server-side compaction: the answer comes out and both iterations are counted", async () => {
    const turn = done(await replay("anthropic-compaction.1.chunks.txt"));
    expect(textOf(turn.message.content)).toMatch(
      /^Based on the conversation history, you asked me to summarize/,
    );
    expect(turn.usage).toMatchObject({ inputTokens: 60385 + 612, outputTokens: 522 + 2819 });
  });

  it("a duplicated message_start still gives the one correct turn", async () => {
    const turn = done(await replay("duplicate-message-start.chunks.txt"));
    expect(turn.message.content).toEqual([{ type: "text", text: "Hello, World!" }]);
    expect(turn.usage).toMatchObject({ inputTokens: 17, outputTokens: 227 });
  });

  it("a spliced message_start: the restarted message wins, the cut-off one is dropped", async () => {
    const turn = done(await replay("spliced-message-start.chunks.txt"));
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
