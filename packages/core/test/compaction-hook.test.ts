import {
  type BeforeCompactionInput,
  DEFAULT_SUMMARY_INSTRUCTIONS,
  defineHook,
  defineTool,
  Harness,
  type RunEvent,
  textOf,
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

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-compaction-hook-"));
});
afterEach(() => cleanup());

const bulky = defineTool({
  name: "bulky",
  description: "Returns a block of text",
  inputSchema: z.object({ n: z.number().int() }),
  execute: async ({ n }) => ({ content: `block ${n}: ${"x".repeat(1_000)}` }),
});

/** Calls bulky `turns` times, then answers; a summary request (its own system prompt) gets a summary. */
function workScript(turns: number, summarySystem = DEFAULT_SUMMARY_INSTRUCTIONS, overflowAt?: number) {
  let main = 0;
  return (request: ScriptRequest): ScriptedTurn => {
    if (request.system === summarySystem) return { text: "summarized" };
    main++;
    if (main === overflowAt) return { error: { code: "context_overflow", message: "prompt is too long" } };
    return main <= turns ? { toolCalls: [{ name: "bulky", arguments: { n: main } }] } : { text: "all done" };
  };
}

const seen = (events: readonly RunEvent[], type: RunEvent["type"]) => events.filter((e) => e.type === type);
type Seen = Pick<BeforeCompactionInput, "trigger" | "instructions" | "runId" | "sessionId">;

describe("before_compaction", () => {
  it("runs before each automatic compaction with trigger auto, the configured instructions and the session", async () => {
    const calls: Seen[] = [];
    const instructions = "Keep every file path.";
    const model = new ScriptedModel(workScript(8, instructions));
    const harness = new Harness({
      model,
      tools: [bulky],
      workspace: dir,
      context: {
        contextWindow: 2_000,
        compaction: { threshold: 0.6, keepRecentTokens: 500, instructions },
      },
      hooks: [
        defineHook({
          event: "before_compaction",
          handler: ({ trigger, instructions, runId, sessionId }) =>
            void calls.push({ trigger, instructions, runId, ...(sessionId ? { sessionId } : {}) }),
        }),
      ],
    });
    const stream = harness.stream({ prompt: "read", sessionId: "s-1" });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("completed");
    const compactions = seen(events, "compaction");
    expect(compactions.length).toBeGreaterThan(0);
    // One hook call per compaction, each before it.
    expect(calls).toHaveLength(compactions.length);
    expect(calls[0]).toEqual({ trigger: "auto", instructions, runId: stream.runId, sessionId: "s-1" });
  });

  it("gives empty instructions when the defaults are used", async () => {
    const given: string[] = [];
    const harness = new Harness({
      model: new ScriptedModel(workScript(8)),
      tools: [bulky],
      workspace: dir,
      context: { contextWindow: 2_000, compaction: { threshold: 0.6, keepRecentTokens: 500 } },
      hooks: [
        defineHook({ event: "before_compaction", handler: (input) => void given.push(input.instructions) }),
      ],
    });
    await harness.run({ prompt: "read" });
    expect(given.length).toBeGreaterThan(0);
    expect(new Set(given)).toEqual(new Set([""]));
  });

  it("a cancel keeps the transcript whole, and the run goes on", async () => {
    let asked = 0;
    const model = new ScriptedModel(workScript(8));
    const harness = new Harness({
      model,
      tools: [bulky],
      workspace: dir,
      context: { contextWindow: 2_000, compaction: { threshold: 0.6, keepRecentTokens: 500 } },
      hooks: [
        defineHook({
          event: "before_compaction",
          handler: (input) => {
            asked++;
            input.cancel("a checkpoint is being written");
          },
        }),
      ],
    });
    const stream = harness.stream({ prompt: "read" });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("completed");
    expect(asked).toBeGreaterThan(0);
    expect(seen(events, "compaction")).toEqual([]);
    // No summary was asked for: the hook ran before the summary request.
    expect(model.requests.filter((r) => r.system === DEFAULT_SUMMARY_INSTRUCTIONS)).toEqual([]);
    // Not asked again on every turn: only after the transcript has grown.
    expect(asked).toBeLessThan(8);
  });

  it("after a context overflow a cancel ends the run as the overflow, with the hook's reason", async () => {
    const history = Array.from({ length: 6 }, (_, i) => [
      {
        role: "user" as const,
        content: [{ type: "text" as const, text: `question ${i} ${"y".repeat(900)}` }],
      },
      { role: "assistant" as const, content: [{ type: "text" as const, text: `answer ${i}` }] },
    ]).flat();
    const triggers: string[] = [];
    const harness = new Harness({
      model: new ScriptedModel(workScript(0, DEFAULT_SUMMARY_INSTRUCTIONS, 1)),
      workspace: dir,
      context: { contextWindow: 1_000_000, compaction: true },
      hooks: [
        defineHook({
          event: "before_compaction",
          handler: (input) => {
            triggers.push(input.trigger);
            input.cancel("not now");
          },
        }),
      ],
    });
    const result = await harness.run({ prompt: "go on", history });
    expect(triggers).toEqual(["auto"]);
    expect(result.stopReason).toBe("provider_error");
    expect(result.error?.message).toContain("a before_compaction hook blocked it: not now");
  });

  it("a throwing hook is reported and compaction goes on; in strict mode the run fails", async () => {
    const throwing = defineHook({
      event: "before_compaction",
      name: "saver",
      handler: () => {
        throw new Error("disk full");
      },
    });
    const settings = {
      tools: [bulky],
      workspace: dir,
      context: { contextWindow: 2_000, compaction: { threshold: 0.6, keepRecentTokens: 500 } },
      hooks: [throwing],
    };
    const lenient = new Harness({ ...settings, model: new ScriptedModel(workScript(8)) });
    const stream = lenient.stream({ prompt: "read" });
    const events = await collectEvents(stream);
    expect((await stream.result).stopReason).toBe("completed");
    expect(seen(events, "hook_failed")[0]).toMatchObject({ hook: "before_compaction", hookName: "saver" });
    expect(seen(events, "compaction").length).toBeGreaterThan(0);

    const strict = new Harness({ ...settings, model: new ScriptedModel(workScript(8)), strictHooks: true });
    const failed = await strict.run({ prompt: "read" });
    expect(failed.stopReason).toBe("hook_failed");
    expect(failed.messages.some((m) => m.role === "user" && textOf(m.content).includes("summarized"))).toBe(
      false,
    );
  });

  it("harness.beforeCompaction runs them for a compaction outside a run (trigger manual)", async () => {
    const calls: Seen[] = [];
    const harness = new Harness({
      model: new ScriptedModel([]),
      workspace: dir,
      hooks: [
        defineHook({
          event: "before_compaction",
          handler: (input) => {
            calls.push({
              trigger: input.trigger,
              instructions: input.instructions,
              runId: input.runId,
              ...(input.sessionId ? { sessionId: input.sessionId } : {}),
            });
            if (input.instructions.includes("block")) input.cancel("blocked by request");
          },
        }),
      ],
    });
    expect(await harness.beforeCompaction({ sessionId: "s-2", instructions: "keep the plan" })).toEqual({
      blocked: false,
    });
    expect(calls[0]).toMatchObject({ trigger: "manual", instructions: "keep the plan", sessionId: "s-2" });
    expect(calls[0]?.runId).toMatch(/^compact-/);
    expect(await harness.beforeCompaction({ instructions: "please block" })).toEqual({
      blocked: true,
      reason: "blocked by request",
    });
    // Without hooks there is nothing to block.
    expect(await new Harness({ model: new ScriptedModel([]), workspace: dir }).beforeCompaction()).toEqual({
      blocked: false,
    });
  });

  it("harness.beforeCompaction tells a throwing hook to onHookFailed", async () => {
    const failures: string[] = [];
    const harness = new Harness({
      model: new ScriptedModel([]),
      workspace: dir,
      hooks: [
        defineHook({
          event: "before_compaction",
          handler: () => {
            throw new Error("boom");
          },
        }),
      ],
    });
    const verdict = await harness.beforeCompaction({ onHookFailed: (f) => void failures.push(f.message) });
    expect(verdict).toEqual({ blocked: false });
    expect(failures).toEqual(["boom"]);
  });
});
