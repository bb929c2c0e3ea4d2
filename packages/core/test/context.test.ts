import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
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
import {
  collectEvents,
  ScriptedModel,
  type ScriptedTurn,
  type ScriptRequest,
  tempWorkspace,
} from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { findCutPoint, SUMMARY_PREFIX } from "../src/compaction.js";
import { expectWellFormed, resultText } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-context-"));
});
afterEach(() => cleanup());

/** A tool whose result is `size` characters: each call adds about size/4 tokens to the transcript. */
const bulky = defineTool({
  name: "bulky",
  description: "Returns a block of text",
  inputSchema: z.object({ n: z.number().int() }),
  execute: async ({ n }) => ({ content: `block ${n}: ${"x".repeat(1_000)}` }),
});

/** The text of a user message (a summary, a prompt); empty for anything else. */
function plainText(message: Message | undefined): string {
  return message?.role === "user" ? textOf(message.content) : "";
}

function isSummaryRequest(ctx: ScriptRequest): boolean {
  return ctx.system === DEFAULT_SUMMARY_INSTRUCTIONS;
}

/** Calls bulky `turns` times, then answers; summary requests get a summary naming what they saw. */
function workScript(turns: number, overflowOn?: (ctx: ScriptRequest, main: number) => boolean) {
  let main = 0;
  return (ctx: ScriptRequest): ScriptedTurn => {
    if (isSummaryRequest(ctx)) {
      const seen = plainText(ctx.messages[0]);
      const blocks = seen.match(/block \d+/g) ?? [];
      return { text: `summarized ${blocks.length} blocks`, usage: { inputTokens: 100, outputTokens: 10 } };
    }
    main++;
    if (overflowOn?.(ctx, main))
      return { error: { code: "context_overflow", message: "prompt is too long" } };
    return main <= turns ? { toolCalls: [{ name: "bulky", arguments: { n: main } }] } : { text: "all done" };
  };
}

function compactions(events: readonly RunEvent[]): CompactionEvent[] {
  return events.filter((event): event is CompactionEvent => event.type === "compaction");
}

describe("compaction at the threshold", () => {
  it("summarizes older turns, keeps the recent ones, and leaves a valid, resumable transcript", async () => {
    const model = new ScriptedModel(workScript(12));
    const harness = new Harness({
      model,
      tools: [bulky],
      workspace: dir,
      context: { contextWindow: 2_000, compaction: { threshold: 0.6, keepRecentTokens: 500 } },
    });
    const stream = harness.stream({ prompt: "read twelve blocks" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    const done = compactions(events);
    expect(done.length).toBeGreaterThan(0);
    for (const event of done) {
      expect(event.reason).toBe("threshold");
      expect(event.tokensBefore).toBeGreaterThanOrEqual(1_200);
      expect(plainText(event.summary)).toContain(SUMMARY_PREFIX);
    }
    // Every request the model saw stayed under the window, and was a well-formed conversation.
    const mainRequests = model.requests.filter((r) => r.system !== DEFAULT_SUMMARY_INSTRUCTIONS);
    expect(mainRequests).toHaveLength(13);
    for (const request of mainRequests) {
      expectWellFormed(request.messages);
      const chars = JSON.stringify(request.messages).length;
      expect(chars / 4).toBeLessThan(2_000);
    }
    // The transcript starts with the latest summary and is exactly what the events project to.
    expect(plainText(result.messages[0])).toMatch(/summarized \d+ blocks/);
    expectWellFormed(result.messages);
    expect(projectTranscript(events)).toEqual(result.messages);
    // The summary request's tokens are in the run's usage.
    expect(result.usage.tokens.inputTokens).toBe(100 * done.length);
    // Resumable: the next turn continues from the compacted transcript.
    const next = new ScriptedModel([{ text: "still here" }]);
    const resumed = await new Harness({ model: next, tools: [bulky], workspace: dir }).run({
      prompt: "and now?",
      continueFrom: result,
    });
    expect(resumed.stopReason).toBe("completed");
    expect(next.requests[0]?.messages.slice(0, result.messages.length)).toEqual(result.messages);
    expectWellFormed(resumed.messages);
    // As a store would: the events as JSON, projected again in another process, continue the thread.
    const stored = JSON.parse(JSON.stringify(events)) as RunEvent[];
    const history = projectTranscript(stored);
    expect(history).toEqual(result.messages);
    const later = new ScriptedModel([{ text: "from the store" }]);
    const fromStore = await new Harness({ model: later, workspace: dir }).run({ prompt: "more", history });
    expect(fromStore.stopReason).toBe("completed");
    expect(later.requests[0]?.messages).toHaveLength(history.length + 1);
  });

  it("does nothing while the transcript is under the threshold", async () => {
    const model = new ScriptedModel(workScript(3));
    const harness = new Harness({
      model,
      tools: [bulky],
      workspace: dir,
      context: { contextWindow: 100_000, compaction: true },
    });
    const events = await collectEvents(harness.stream({ prompt: "go" }));
    expect(compactions(events)).toEqual([]);
    expect(model.requests.every((r) => r.system !== DEFAULT_SUMMARY_INSTRUCTIONS)).toBe(true);
  });

  it("goes on without compacting when the summary request fails, and does not retry it every turn", async () => {
    let summaries = 0;
    const inner = workScript(6);
    const model = new ScriptedModel((ctx) => {
      if (isSummaryRequest(ctx)) {
        summaries++;
        return { error: { code: "server", message: "summarizer down" } };
      }
      return inner(ctx);
    });
    const harness = new Harness({
      model,
      tools: [bulky],
      workspace: dir,
      context: { contextWindow: 3_000, compaction: { threshold: 0.3, keepRecentTokens: 300 } },
    });
    const stream = harness.stream({ prompt: "go" });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("completed");
    expect(compactions(events)).toEqual([]);
    expect(summaries).toBeGreaterThan(0);
    expect(summaries).toBeLessThan(6);
  });

  it("refuses compaction without a context window", () => {
    expect(() => new Harness({ model: new ScriptedModel([]), context: { compaction: true } })).toThrow(
      /contextWindow/,
    );
    expect(
      () =>
        new Harness({
          model: new ScriptedModel([]),
          context: { contextWindow: 1_000, compaction: { keepRecentTokens: 900 } },
        }),
    ).toThrow(/keepRecentTokens/);
  });
});

describe("context overflow from the provider", () => {
  const history: Message[] = [];
  for (let i = 0; i < 8; i++) {
    history.push(userText(`question ${i} ${"y".repeat(800)}`));
    history.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}` }] });
  }

  it("compacts once and retries the request once", async () => {
    const model = new ScriptedModel(workScript(2, (_ctx, main) => main === 1));
    const harness = new Harness({
      model,
      tools: [bulky],
      workspace: dir,
      // A window the estimate thinks is roomy: only the provider knows better.
      context: { contextWindow: 1_000_000, compaction: { keepRecentTokens: 400 } },
    });
    const stream = harness.stream({ prompt: "continue", history });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    const [compaction, ...others] = compactions(events);
    expect(others).toEqual([]);
    expect(compaction?.reason).toBe("overflow");
    expect(events.filter((e) => e.type === "model_request").map((e) => e.type)).toHaveLength(3);
    expect(result.usage.modelRequests).toBe(3);
    // The retried request was the compacted one: the summary, then the recent turns.
    const retried = model.requests.filter((r) => r.system !== DEFAULT_SUMMARY_INSTRUCTIONS)[1];
    expect(retried?.messages.length).toBeLessThan(history.length);
    expect(plainText(retried?.messages[0])).toContain("summarized");
    expectWellFormed(result.messages);
    expect(projectTranscript(events, history)).toEqual(result.messages);
  });

  it("ends with provider_error when the retried request overflows again", async () => {
    const model = new ScriptedModel(workScript(1, () => true));
    const harness = new Harness({
      model,
      workspace: dir,
      context: { contextWindow: 1_000_000, compaction: { keepRecentTokens: 400 } },
    });
    const result = await harness.run({ prompt: "continue", history });
    expect(result.stopReason).toBe("provider_error");
    expect(result.error?.code).toBe("context_overflow");
    expect(result.usage.modelRequests).toBe(2);
  });

  it("says why when there is nothing to compact, and does not retry without compaction", async () => {
    const alone = new ScriptedModel(workScript(1, () => true));
    const compacting = new Harness({
      model: alone,
      workspace: dir,
      context: { contextWindow: 1_000_000, compaction: true },
    });
    const result = await compacting.run({ prompt: "a huge prompt" });
    expect(result.stopReason).toBe("provider_error");
    expect(result.error?.message).toMatch(/compaction could not make room/);
    const plain = new Harness({ model: new ScriptedModel(workScript(1, () => true)), workspace: dir });
    const failed = await plain.run({ prompt: "continue", history });
    expect(failed.stopReason).toBe("provider_error");
    expect(failed.usage.modelRequests).toBe(1);
  });
});

describe("where a transcript may be cut", () => {
  const call = (id: string): Message => ({
    role: "assistant",
    content: [{ type: "tool_call", id, name: "t", arguments: "{}" }],
  });
  const result = (id: string): Message => ({
    role: "tool",
    toolCallId: id,
    toolName: "t",
    content: [{ type: "text", text: "r".repeat(400) }],
    isError: false,
  });
  const size = (message: Message) => Math.ceil(JSON.stringify(message).length / 4);

  it("never between a call and its result", () => {
    const messages = [userText("start"), call("a"), result("a"), call("b"), result("b"), userText("next")];
    for (const keep of [0, 50, 150, 250, 400, 10_000]) {
      const cut = findCutPoint(messages, keep, size);
      if (cut === undefined) continue;
      expect(messages[cut]?.role).not.toBe("tool");
      expectWellFormed(messages.slice(cut));
    }
  });

  it("keeps every call still waiting for its result", () => {
    const messages = [userText("start"), call("a"), result("a"), call("b"), call("c")].filter(
      (_m, i) => i !== 4,
    );
    messages.push({
      role: "assistant",
      content: [
        { type: "tool_call", id: "c1", name: "t", arguments: "{}" },
        { type: "tool_call", id: "c2", name: "t", arguments: "{}" },
      ],
    });
    const open = [...messages, result("c1")];
    // Results of b are missing too: the cut can only come before b's turn.
    const cut = findCutPoint(open, 0, size);
    expect(cut).toBeDefined();
    expect(cut).toBeLessThanOrEqual(3);
  });

  it("finds nothing to cut in a lone prompt", () => {
    expect(findCutPoint([userText("only")], 0, size)).toBeUndefined();
  });
});

describe("large tool results", () => {
  it("spills a 10 MB result to a file; the model gets the head, the tail and the path", async () => {
    const huge = `${"HEAD".repeat(10)}${"m".repeat(10 * 1024 * 1024)}${"TAIL".repeat(10)}`;
    const dump = defineTool({
      name: "dump",
      description: "Prints a lot",
      inputSchema: z.object({}),
      execute: async () => ({ content: huge, details: { exitCode: 0 } }),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "dump", id: "big", arguments: {} }] },
      { text: "ok" },
    ]);
    const harness = new Harness({ model, tools: [dump], workspace: dir });
    const stream = harness.stream({ prompt: "dump it" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    const seen = model.requests[1]?.messages.at(-1);
    const text = resultText(seen);
    expect(text.length).toBeLessThan(20_000);
    expect(text.startsWith("HEAD")).toBe(true);
    expect(text.endsWith("TAIL")).toBe(true);
    const path = join(".bridle", "tool-output", result.runId, "big.txt");
    expect(text).toContain(path);
    expect((await stat(join(dir, path))).size).toBe(huge.length);
    // Neither the event stream (what stores persist) nor the transcript carries the 10 MB.
    expect(JSON.stringify(events).length).toBeLessThan(100_000);
    const completed = events.find((e) => e.type === "tool_call_completed");
    expect(completed?.type === "tool_call_completed" && completed.result.details).toEqual({
      spilled: { path, chars: huge.length },
      details: { exitCode: 0 },
    });
  });

  it("keeps results under the limit as they are, and can be turned off", async () => {
    const text = "z".repeat(150_000);
    const echo = defineTool({
      name: "echo",
      description: "Echo",
      inputSchema: z.object({}),
      execute: async () => ({ content: text }),
    });
    const script = [{ toolCalls: [{ name: "echo", arguments: {} }] }, { text: "ok" }];
    const small = new ScriptedModel(script);
    await new Harness({
      model: small,
      tools: [echo],
      workspace: dir,
      context: { spill: { maxChars: 200_000 } },
    }).run({ prompt: "go" });
    expect(resultText(small.requests[1]?.messages.at(-1))).toBe(text);
    const off = new ScriptedModel(script);
    await new Harness({ model: off, tools: [echo], workspace: dir, context: { spill: false } }).run({
      prompt: "go",
    });
    expect(resultText(off.requests[1]?.messages.at(-1))).toBe(text);
  });

  it("still gives a bounded preview when the spill file cannot be written", async () => {
    await writeFile(join(dir, "blocker"), "a file where the folder should be");
    const dump = defineTool({
      name: "dump",
      description: "Prints a lot",
      inputSchema: z.object({}),
      execute: async () => ({ content: "q".repeat(300_000) }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "dump", arguments: {} }] }, { text: "ok" }]);
    const harness = new Harness({
      model,
      tools: [dump],
      workspace: dir,
      context: { spill: { dir: "blocker/out" } },
    });
    expect((await harness.run({ prompt: "go" })).stopReason).toBe("completed");
    const text = resultText(model.requests[1]?.messages.at(-1));
    expect(text.length).toBeLessThan(20_000);
    expect(text).toMatch(/could not be saved/);
  });
});

describe("workspace instructions", () => {
  it("reads AGENTS.md from the repository root down to the workspace and appends them to the system prompt", async () => {
    await mkdir(join(dir, ".git"));
    await writeFile(join(dir, "AGENTS.md"), "Use pnpm, never npm.");
    const sub = join(dir, "packages", "app");
    await mkdir(sub, { recursive: true });
    await writeFile(join(sub, "CLAUDE.md"), "Tests live in test/.");
    const model = new ScriptedModel([{ text: "ok" }]);
    const harness = new Harness({
      model,
      system: "You are careful.",
      workspace: sub,
      context: { instructions: true },
    });
    await harness.run({ prompt: "hi" });
    const system = model.requests[0]?.system ?? "";
    expect(system.startsWith("You are careful.")).toBe(true);
    expect(system.indexOf("Use pnpm")).toBeGreaterThan(0);
    expect(system.indexOf("Tests live in test/.")).toBeGreaterThan(system.indexOf("Use pnpm"));
    // Instructions are read at run start: an edit shows in the next run.
    await writeFile(join(sub, "CLAUDE.md"), "Tests live in spec/.");
    const again = new ScriptedModel([{ text: "ok" }]);
    await new Harness({ model: again, workspace: sub, context: { instructions: { maxBytes: 1_000 } } }).run({
      prompt: "hi",
    });
    expect(again.requests[0]?.system).toContain("spec/");
    expect(await readFile(join(sub, "CLAUDE.md"), "utf8")).toContain("spec/");
  });

  it("sends no instructions unless asked", async () => {
    await writeFile(join(dir, "AGENTS.md"), "secret sauce");
    const model = new ScriptedModel([{ text: "ok" }]);
    await new Harness({ model, workspace: dir }).run({ prompt: "hi" });
    expect(model.requests[0]?.system).toBeUndefined();
  });
});
