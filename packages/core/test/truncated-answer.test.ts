import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineHook, defineTool, Harness, type RunEndInput, type StopReason } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectWellFormed } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

const noter = defineTool({
  name: "note",
  description: "writes a note",
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }, env) => {
    await writeFile(join(env.workspace.root, "note.txt"), text);
    return { content: "noted" };
  },
});

describe("a final answer cut off at max_tokens", () => {
  it("ends the run with stop reason max_tokens, not completed, and keeps the partial text", async () => {
    const ends: RunEndInput[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "note", arguments: { text: "step one" } }] },
      { text: "The three causes are: first, the cache; second, the", stopReason: "max_tokens" },
    ]);
    const harness = new Harness({
      model,
      tools: [noter],
      workspace: dir,
      hooks: [defineHook({ event: "run_end", handler: (input) => void ends.push(input) })],
    });
    const stream = harness.stream({ prompt: "why is it slow?" });
    const events = await collectEvents(stream);
    const result = await stream.result;

    expect(result.stopReason).toBe("max_tokens");
    expect(result.finalText).toBe("The three causes are: first, the cache; second, the");
    expect(result.error?.code).toBe("max_tokens");
    expect(result.error?.message).toMatch(/cut off.*max_tokens.*incomplete/);
    expect(events.some((e) => e.type === "run_completed")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "run_failed", stopReason: "max_tokens" });
    expect(ends.map((e) => [e.stopReason, e.finalText, e.error?.code])).toEqual([
      ["max_tokens", result.finalText, "max_tokens"],
    ]);
    // The work before the cut is kept: the tool ran, and the transcript holds the partial answer.
    expect(model.calls).toBe(2);
    expect(result.messages.at(-1)).toMatchObject({ role: "assistant" });
    expectWellFormed(result.messages);
  });

  it("still completes an answer that ended for any other reason", async () => {
    const reasons: StopReason[] = [];
    for (const stopReason of ["end_turn", "content_filter", "refusal"] as const) {
      const model = new ScriptedModel([{ text: "short answer", stopReason }]);
      const result = await new Harness({ model, workspace: dir }).run({ prompt: "q" });
      reasons.push(result.stopReason);
    }
    expect(reasons).toEqual(["completed", "completed", "completed"]);
  });

  // A cut-off answer can still validate ("1234" cut to "12"): the stop reason decides, in every mode.
  for (const mode of ["native", "prompted", "text"] as const) {
    it(`never accepts a cut-off structured answer that validates (${mode} mode)`, async () => {
      // Text mode validates the text itself, the others its JSON: "12" passes either way.
      const output = { mode, schema: z.union([z.number(), z.string().max(100)]) };
      const model = new ScriptedModel([{ text: "12", stopReason: "max_tokens" }, { text: "1234" }]);
      const result = await new Harness({ model, workspace: dir, output }).run({ prompt: "how many?" });

      expect(result.stopReason).toBe("max_tokens");
      expect(result.output).toBeUndefined();
      expect(result.finalText).toBe("12");
      expect(model.calls).toBe(1);
    });
  }

  it("ends a tool-mode run whose cut-off turn has text and no call, instead of asking again", async () => {
    const model = new ScriptedModel([
      { text: "The city is Pa", stopReason: "max_tokens" },
      { toolCalls: [{ name: "final_result", arguments: { city: "Paris" } }] },
    ]);
    const output = { mode: "tool" as const, schema: z.object({ city: z.string() }) };
    const result = await new Harness({ model, workspace: dir, output }).run({ prompt: "which city?" });

    expect(result.stopReason).toBe("max_tokens");
    expect(result.output).toBeUndefined();
    expect(model.calls).toBe(1);
  });

  it("says so on the event stream: the model_response and the run_failed both carry max_tokens", async () => {
    const model = new ScriptedModel([{ text: "partial", stopReason: "max_tokens" }]);
    const stream = new Harness({ model, workspace: dir }).stream({ prompt: "q" });
    const events = await collectEvents(stream);
    const responses = events.filter((e) => e.type === "model_response");
    expect(responses.map((e) => e.stopReason)).toEqual(["max_tokens"]);
    expect(JSON.parse(JSON.stringify(events.at(-1)))).toMatchObject({
      type: "run_failed",
      stopReason: "max_tokens",
      error: { code: "max_tokens" },
    });
  });
});
