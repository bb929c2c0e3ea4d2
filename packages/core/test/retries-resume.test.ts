import { BridleError, defineTool, Harness, type Model, ModelRetry, type ReasoningPart } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectWellFormed, noopTool, resultText } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

const checkout = defineTool({
  name: "checkout",
  description: "checks out a branch",
  inputSchema: z.object({ branch: z.string() }),
  retryBudget: 2,
  execute: async ({ branch }) => {
    if (branch !== "main") throw new ModelRetry(`branch "${branch}" does not exist; the branches are: main`);
    return { content: "on main" };
  },
});

describe("tool retries", () => {
  it("a handler's ModelRetry reaches the model as a hint and the model recovers", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "checkout", arguments: { branch: "master" } }] },
      { toolCalls: [{ name: "checkout", arguments: { branch: "main" } }] },
      { text: "done" },
    ]);
    const result = await new Harness({ model, tools: [checkout], workspace: dir }).run({ prompt: "go" });
    const results = result.messages.filter((m) => m.role === "tool");
    expect(resultText(results[0])).toBe(
      'RetryRequested: branch "master" does not exist; the branches are: main',
    );
    expect(results[0]?.role === "tool" && results[0].errorKind).toBe("RetryRequested");
    expect(result.stopReason).toBe("completed");
    expect(result.usage.toolRetries).toEqual({ checkout: 1 });
  });

  it("malformed JSON, schema failures and ModelRetry share one budget per tool name per run", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "checkout", arguments: '{"branch": "main"' }] },
      { toolCalls: [{ name: "checkout", arguments: { branch: 7 } }, { name: "noop" }] },
      { toolCalls: [{ name: "checkout", arguments: { branch: "dev" } }] },
      { text: "never reached" },
    ]);
    const result = await new Harness({ model, tools: [checkout, noopTool], workspace: dir }).run({
      prompt: "go",
    });
    const texts = result.messages.filter((m) => m.role === "tool").map(resultText);
    expect(texts[0]).toMatch(/^InvalidInput: .*not valid JSON/s);
    expect(texts[1]).toMatch(/^InvalidInput: .*branch/s);
    expect(result.stopReason).toBe("tool_retries_exceeded");
    expect(result.error?.message).toMatch(/tool "checkout"/);
    expect(result.usage.toolRetries).toEqual({ checkout: 3 });
    expectWellFormed(result.messages);
  });

  it("an ordinary failure does not spend the retry budget", async () => {
    const flaky = defineTool({
      name: "flaky",
      description: "fails",
      inputSchema: z.object({}),
      retryBudget: 0,
      execute: async () => {
        throw new Error("disk hiccup");
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "flaky" }] }, { text: "ok" }]);
    const result = await new Harness({ model, tools: [flaky], workspace: dir }).run({ prompt: "go" });
    expect(result.stopReason).toBe("completed");
    expect(result.usage.toolRetries).toEqual({});
  });
});

describe("resume from a finished run", () => {
  it("continues on another provider from the neutral transcript, carrying reasoning untouched", async () => {
    const blob = { signature: "c2lnbmVk", encrypted: "b3BhcXVl" };
    const first: Model = {
      provider: "provider-a",
      model: "a-1",
      async *stream() {
        yield {
          type: "done",
          stopReason: "end_turn",
          usage: {
            inputTokens: 5,
            outputTokens: 5,
            cacheReadTokens: 0,
            cacheWriteTokens: 0,
            reasoningTokens: 3,
          },
          message: {
            role: "assistant",
            provider: "provider-a",
            model: "a-1",
            content: [
              { type: "reasoning", text: "think", provider: "provider-a", blob },
              { type: "text", text: "first answer" },
            ],
          },
        };
      },
    };
    const done = await new Harness({ model: first, workspace: dir }).run({ prompt: "one" });
    const serialized = JSON.parse(JSON.stringify(done));
    const second = new ScriptedModel([{ text: "second answer" }], { provider: "provider-b" });
    const result = await new Harness({ model: second, workspace: dir }).run({
      prompt: "two",
      continueFrom: serialized,
    });
    expect(result.finalText).toBe("second answer");
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const sent = second.requests[0]?.messages ?? [];
    expect(sent).toHaveLength(3);
    const reasoning = sent[1]?.role === "assistant" ? (sent[1].content[0] as ReasoningPart) : undefined;
    // Core never rewrites reasoning: the adapter replays it natively or degrades it, by provider.
    expect(reasoning).toEqual({ type: "reasoning", text: "think", provider: "provider-a", blob });
    expect(result.usage.modelRequests).toBe(1);
  });

  it("refuses to silently continue a run that did not complete", async () => {
    const model = new ScriptedModel([{ error: { code: "server", message: "502" } }]);
    const harness = new Harness({ model, workspace: dir });
    const failed = await harness.run({ prompt: "one" });
    expect(failed.stopReason).toBe("provider_error");
    expect(() => harness.stream({ prompt: "two", continueFrom: failed })).toThrow(BridleError);
    expect(() => harness.stream({ prompt: "two", continueFrom: failed })).toThrow(/only a completed run/);
    expect(() =>
      harness.stream({ prompt: "two", continueFrom: { ...failed, stopReason: "completed" }, history: [] }),
    ).toThrow(/either history or continueFrom/);
  });
});
