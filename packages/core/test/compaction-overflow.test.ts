import {
  type CompactionEvent,
  DEFAULT_SUMMARY_INSTRUCTIONS,
  defineTool,
  Harness,
  type Message,
  projectTranscript,
  type RunEvent,
  textOf,
  userText,
} from "@bridle/core";
import { collectEvents, ScriptedModel, type ScriptRequest, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { statedContextLimit } from "../src/compaction.js";
import { expectWellFormed } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-overflow-"));
});
afterEach(() => cleanup());

const bulky = defineTool({
  name: "bulky",
  description: "Returns a block of text",
  inputSchema: z.object({ n: z.number().int() }),
  execute: async ({ n }) => ({ content: `block ${n}: ${"x".repeat(1_000)}` }),
});

// The provider's real limit, counted its own way: three characters a token of the request as JSON, so
// core's four-characters estimate undercounts it, as real tokenizers often do.
const LIMIT = 3_000;

function realTokens(request: ScriptRequest): number {
  const chars =
    JSON.stringify(request.messages).length +
    (request.system?.length ?? 0) +
    JSON.stringify(request.tools).length;
  return Math.ceil(chars / 3);
}

interface Seen {
  readonly summary: boolean;
  readonly tokens: number;
  readonly overflowed: boolean;
}

/**
 * A model with a real context limit core is not told about: any request past it fails with `wording`.
 * The agent calls bulky `turns` times, then answers; a summary request gets `summary(seen text)`.
 */
function limitedModel(
  wording: (requested: number, limit: number) => string,
  turns: number,
  summary: (text: string) => string = (text) =>
    `summarized ${(text.match(/block \d+/g) ?? []).length} blocks`,
  reportUsage = false,
) {
  const seen: Seen[] = [];
  let main = 0;
  const model = new ScriptedModel((request) => {
    const isSummary = request.system === DEFAULT_SUMMARY_INSTRUCTIONS;
    const tokens = realTokens(request);
    const overflowed = tokens > LIMIT;
    seen.push({ summary: isSummary, tokens, overflowed });
    if (overflowed)
      return { error: { code: "context_overflow", message: wording(tokens, LIMIT), status: 400 } };
    if (isSummary) {
      const first = request.messages[0];
      return { text: summary(first?.role === "user" ? textOf(first.content) : "") };
    }
    main++;
    // A provider counts what it was sent, in its own tokens.
    const usage = reportUsage ? { usage: { inputTokens: tokens, outputTokens: 10 } } : {};
    return main <= turns
      ? { toolCalls: [{ name: "bulky", arguments: { n: main } }], ...usage }
      : { text: "all done", ...usage };
  });
  return { model, seen };
}

/** A long conversation that already overflows the provider's limit on the first request. */
function longHistory(): Message[] {
  const history: Message[] = [];
  for (let i = 0; i < 10; i++) {
    history.push(userText(`question ${i} ${"y".repeat(900)}`));
    history.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}` }] });
  }
  return history;
}

function compactions(events: readonly RunEvent[]): CompactionEvent[] {
  return events.filter((event): event is CompactionEvent => event.type === "compaction");
}

// The configured window of a model the harness does not know: far larger than the real one.
const unknownModel = { contextWindow: 1_000_000, compaction: true } as const;

const WORDINGS = {
  openai: (requested: number, limit: number) =>
    `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${requested} tokens. Please reduce the length of the messages.`,
  anthropic: (requested: number, limit: number) =>
    `prompt is too long: ${requested} tokens > ${limit} maximum`,
  "llama.cpp": (requested: number, limit: number) =>
    `request (${requested} tokens) exceeds the available context size (${limit} tokens), try increasing it`,
};

describe("compaction after a context overflow", () => {
  it.each(Object.entries(WORDINGS))(
    "takes the limit from %s's error and keeps later requests under it",
    async (_name, wording) => {
      const { model, seen } = limitedModel(wording, 12);
      const harness = new Harness({ model, tools: [bulky], workspace: dir, context: unknownModel });
      const stream = harness.stream({ prompt: "continue", history: longHistory() });
      const events = await collectEvents(stream);
      const result = await stream.result;
      expect(result.stopReason).toBe("completed");
      // One overflow, the first request: after it the run knew the limit and compacted in time.
      expect(seen.filter((s) => s.overflowed)).toEqual([
        { summary: false, tokens: seen[0]?.tokens, overflowed: true },
      ]);
      const done = compactions(events);
      expect(done[0]?.reason).toBe("overflow");
      expect(done.slice(1).length).toBeGreaterThan(0);
      expect(done.slice(1).every((event) => event.reason === "threshold")).toBe(true);
      // Every compaction left the next request smaller than the one before it.
      const afterCompaction = seen.flatMap((s, i) => {
        if (s.summary || seen[i - 1]?.summary !== true) return [];
        const previous = seen.slice(0, i).findLast((p) => !p.summary) as Seen;
        return [{ before: previous.tokens, after: s.tokens }];
      });
      expect(afterCompaction).toHaveLength(done.length);
      for (const { before, after } of afterCompaction) expect(after).toBeLessThan(before);
      // The twelve tool turns, the answer, and the request that overflowed.
      expect(seen.filter((s) => !s.summary)).toHaveLength(14);
      expectWellFormed(result.messages);
      expect(projectTranscript(events, longHistory())).toEqual(result.messages);
    },
  );

  it("keeps under the stated limit when the provider reports its own token counts", async () => {
    const { model, seen } = limitedModel(WORDINGS.openai, 12, undefined, true);
    const harness = new Harness({ model, tools: [bulky], workspace: dir, context: unknownModel });
    const result = await harness.run({ prompt: "continue", history: longHistory() });
    expect(result.stopReason).toBe("completed");
    expect(seen.filter((s) => s.overflowed)).toHaveLength(1);
    // Compacting at the threshold of the stated limit, not at a share of it shrunk twice.
    const summaries = seen.filter((s) => s.summary).length;
    expect(summaries).toBeGreaterThan(1);
    expect(summaries).toBeLessThan(8);
  });

  it("with no stated limit, shrinks below the request that failed and finishes", async () => {
    const { model, seen } = limitedModel(() => "Your input exceeds the context window of this model.", 3);
    const harness = new Harness({ model, tools: [bulky], workspace: dir, context: unknownModel });
    const stream = harness.stream({ prompt: "continue", history: longHistory() });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    const failed = seen.find((s) => s.overflowed) as Seen;
    const retried = seen.filter((s) => !s.summary)[1] as Seen;
    expect(retried.tokens).toBeLessThan(failed.tokens);
    expect(seen.filter((s) => s.summary && s.overflowed)).toEqual([]);
    expect(compactions(events)[0]?.reason).toBe("overflow");
  });

  it("never applies a summary that would leave the context larger than it was", async () => {
    // A summarizer that writes more than it was given.
    const { model, seen } = limitedModel(WORDINGS.openai, 1, (text) => `${text}${text}`);
    const harness = new Harness({ model, workspace: dir, context: unknownModel });
    const stream = harness.stream({ prompt: "continue", history: longHistory() });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("provider_error");
    expect(result.error?.code).toBe("context_overflow");
    expect(result.error?.message).toMatch(
      /compaction could not make room: the summary and the turns kept .* would not be smaller/,
    );
    expect(compactions(events)).toEqual([]);
    // No request after the failed one: the run did not retry with a grown context.
    expect(seen.filter((s) => !s.summary)).toHaveLength(1);
  });

  it("says so when the system prompt and tools alone pass the stated limit", async () => {
    const { model } = limitedModel(WORDINGS.anthropic, 1);
    const harness = new Harness({
      model,
      system: "z".repeat(12_000),
      workspace: dir,
      context: unknownModel,
    });
    const result = await harness.run({ prompt: "continue", history: longHistory() });
    expect(result.stopReason).toBe("provider_error");
    expect(result.error?.message).toMatch(
      /the system prompt and tool definitions alone take about \d+ of the \d+ tokens/,
    );
  });
});

describe("the limit an overflow message states", () => {
  it("reads OpenAI's, Anthropic's and llama.cpp's wordings, and nothing from a message without one", () => {
    expect(statedContextLimit(WORDINGS.openai(130_512, 128_000))).toEqual({
      limit: 128_000,
      requested: 130_512,
    });
    expect(
      statedContextLimit(
        "This model's maximum context length is 8,192 tokens. However, you requested 9,000 tokens (8000 in the messages, 1000 in the completion).",
      ),
    ).toEqual({ limit: 8_192, requested: 9_000 });
    expect(statedContextLimit(WORDINGS.anthropic(208_566, 200_000))).toEqual({
      limit: 200_000,
      requested: 208_566,
    });
    // Input plus max_tokens: the output's share is not the input's to use.
    expect(
      statedContextLimit(
        "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again",
      ),
    ).toEqual({ limit: 200_000 - 21_333, requested: 188_240 });
    expect(statedContextLimit(WORDINGS["llama.cpp"](5_000, 4_096))).toEqual({
      limit: 4_096,
      requested: 5_000,
    });
    expect(statedContextLimit("Your input exceeds the context window of this model.")).toEqual({});
  });
});
