import {
  type AnyHook,
  BridleError,
  defineHook,
  Harness,
  type Model,
  type ModelOptions,
  type OutputMode,
} from "@bridle/core";
import { collectEvents, ScriptedModel, type ScriptStep, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { FINAL_RESULT_TOOL } from "../src/output.js";
import { expectWellFormed, noopTool, resultText } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

const Answer = z.object({ city: z.string(), population: z.number().int().positive() });

/** A scripted model that also keeps the options of each request. */
function capturing(script: readonly ScriptStep[]): {
  model: Model;
  scripted: ScriptedModel;
  options: (ModelOptions | undefined)[];
} {
  const scripted = new ScriptedModel(script);
  const options: (ModelOptions | undefined)[] = [];
  const model: Model = {
    provider: scripted.provider,
    model: scripted.model,
    stream: (request) => {
      options.push(request.options);
      return scripted.stream(request);
    },
  };
  return { model, scripted, options };
}

/** The same bad-then-good answer, in the shape each mode expects. */
function answers(mode: OutputMode, values: readonly string[]): ScriptStep[] {
  return values.map((value) =>
    mode === "tool" ? { toolCalls: [{ name: FINAL_RESULT_TOOL, arguments: value }] } : { text: value },
  );
}

describe("structured output", () => {
  it("text mode: the final text is the output", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "noop" }] }, { text: "Paris" }]);
    const harness = new Harness({ model, workspace: dir, tools: [noopTool], output: { mode: "text" } });
    const result = await harness.run({ prompt: "capital of France?" });
    expect(result.output).toBe("Paris");
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["noop"]);
  });

  it("text mode with a schema validates the text and corrects it", async () => {
    const model = new ScriptedModel([{ text: "The capital is Paris." }, { text: "Paris" }]);
    const result = await new Harness({
      model,
      workspace: dir,
      output: { mode: "text", schema: z.string().max(10) },
    }).run({ prompt: "one word" });
    expect(result.output).toBe("Paris");
    expect(result.usage.outputRetries).toBe(1);
    expect(JSON.stringify(model.requests[1]?.messages.at(-1))).toMatch(/Reply again with a corrected answer/);
  });

  for (const mode of ["native", "prompted", "tool"] as const) {
    describe(`${mode} mode`, () => {
      it("validates the answer, correcting an invalid one", async () => {
        const script: ScriptStep[] = [
          { toolCalls: [{ name: "noop" }] },
          ...answers(mode, ['{"city":"Paris","population":"lots"}', '{"city":"Paris","population":2100000}']),
        ];
        const { model, scripted, options } = capturing(script);
        const harness = new Harness({
          model,
          workspace: dir,
          tools: [noopTool],
          output: { mode, schema: Answer },
        });
        const stream = harness.stream({ prompt: "capital of France, with population" });
        const events = await collectEvents(stream);
        const result = await stream.result;
        expect(result.stopReason).toBe("completed");
        expect(result.output).toEqual({ city: "Paris", population: 2100000 });
        expect(events.at(-1)).toMatchObject({ type: "run_completed", output: { city: "Paris" } });
        expect(result.usage.outputRetries).toBe(1);
        const retry = events.find((e) => e.type === "output_retry");
        expect(retry?.type === "output_retry" && retry.problems.join()).toMatch(/population/);
        expectWellFormed(result.messages);
        // The corrective turn shows the model what was wrong.
        const corrected = JSON.stringify(scripted.requests[2]?.messages.at(-1));
        expect(corrected).toMatch(/population/);

        const toolNames = scripted.requests[0]?.tools.map((t) => t.name);
        if (mode === "tool") {
          // final_result is offered to the model, but is not one of the harness's tools or tool calls.
          expect(toolNames).toEqual(["noop", FINAL_RESULT_TOOL]);
          expect(harness.tools.map((t) => t.name)).toEqual(["noop"]);
          expect(harness.toolSchemas.map((t) => t.name)).toEqual(["noop"]);
          expect(result.usage.toolCalls).toBe(1);
          expect(resultText(result.messages.at(-1))).toBe("Final answer accepted.");
          expect(resultText(result.messages.at(-3))).toMatch(/^InvalidInput: the answer does not match/);
        } else {
          expect(toolNames).toEqual(["noop"]);
        }
        if (mode === "native") {
          expect(options[0]?.outputSchema).toMatchObject({
            name: "final_answer",
            schema: { type: "object", required: ["city", "population"] },
          });
        } else {
          expect(options[0]?.outputSchema).toBeUndefined();
        }
        if (mode === "prompted") {
          expect(scripted.requests[0]?.system).toMatch(/only a JSON value matching this JSON Schema/);
          expect(scripted.requests[0]?.system).toContain('"population"');
        }
      });

      it("fails with output_retries_exceeded once the corrective turns are spent", async () => {
        const model = new ScriptedModel(answers(mode, ["not json", "[1,2]", '{"city":7}']));
        const ends: string[] = [];
        const hooks: AnyHook[] = [
          defineHook({ event: "limit_reached", handler: (ctx) => void ends.push(ctx.limit) }),
        ];
        const result = await new Harness({
          model,
          workspace: dir,
          output: { mode, schema: Answer },
          limits: { outputRetries: 2 },
          hooks,
        }).run({ prompt: "go" });
        expect(result.stopReason).toBe("output_retries_exceeded");
        expect(result.output).toBeUndefined();
        expect(result.usage.modelRequests).toBe(3);
        expect(result.usage.outputRetries).toBe(2);
        expect(ends).toEqual(["output_retries_exceeded"]);
        expectWellFormed(result.messages);
      });
    });
  }

  it("types the output from the schema", async () => {
    const model = new ScriptedModel([{ text: '{"city":"Oslo","population":700000}' }]);
    const harness = new Harness({ model, workspace: dir, output: { mode: "native", schema: Answer } });
    const result = await harness.run({ prompt: "go" });
    expectTypeOf(result.output).toEqualTypeOf<{ city: string; population: number } | undefined>();
    expect(result.output?.population).toBe(700000);
  });

  it("prompted mode tolerates a code fence around the JSON", async () => {
    const model = new ScriptedModel([{ text: '```json\n{"city":"Oslo","population":700000}\n```' }]);
    const result = await new Harness({
      model,
      workspace: dir,
      output: { mode: "prompted", schema: Answer },
    }).run({
      prompt: "go",
    });
    expect(result.output).toEqual({ city: "Oslo", population: 700000 });
  });

  it("tool mode wraps a non-object schema under `value`", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: FINAL_RESULT_TOOL, arguments: { value: ["a", "b"] } }] },
    ]);
    const result = await new Harness({
      model,
      workspace: dir,
      output: { mode: "tool", schema: z.array(z.string()) },
    }).run({ prompt: "go" });
    expect(result.output).toEqual(["a", "b"]);
    expect(model.requests[0]?.tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["value"] });
  });

  it("tool mode: final_result fires no tool hooks and must come alone", async () => {
    const fired: string[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "noop" },
          { name: FINAL_RESULT_TOOL, arguments: { city: "Rome", population: 2800000 } },
        ],
      },
      { toolCalls: [{ name: FINAL_RESULT_TOOL, arguments: { city: "Rome", population: 2800000 } }] },
    ]);
    const hooks: AnyHook[] = [
      defineHook({
        event: "before_tool_call",
        handler: (ctx) => void fired.push(`before:${ctx.toolCall.name}`),
      }),
      defineHook({
        event: "after_tool_call",
        handler: (ctx) => void fired.push(`after:${ctx.toolCall.name}`),
      }),
    ];
    const result = await new Harness({
      model,
      workspace: dir,
      tools: [noopTool],
      hooks,
      output: { mode: "tool", schema: Answer },
    }).run({ prompt: "go" });
    expect(result.output).toEqual({ city: "Rome", population: 2800000 });
    expect(fired).toEqual(["before:noop", "after:noop"]);
    expect(result.usage.toolCalls).toBe(1);
    expect(result.usage.outputRetries).toBe(1);
    expect(resultText(result.messages[3])).toMatch(/must be called once, on its own/);
    expectWellFormed(result.messages);
  });

  it("tool mode: a turn that ends in text is told to call final_result", async () => {
    const model = new ScriptedModel([
      { text: "It is Rome." },
      { toolCalls: [{ name: FINAL_RESULT_TOOL, arguments: { city: "Rome", population: 1 } }] },
    ]);
    const result = await new Harness({ model, workspace: dir, output: { mode: "tool", schema: Answer } }).run(
      {
        prompt: "go",
      },
    );
    expect(result.stopReason).toBe("completed");
    expect(JSON.stringify(model.requests[1]?.messages.at(-1))).toMatch(/without calling final_result/);
  });

  it("rejects a configuration that cannot work", () => {
    const model = new ScriptedModel([]);
    expect(() => new Harness({ model, output: { mode: "native" } })).toThrow(BridleError);
    const clash = { ...noopTool, name: FINAL_RESULT_TOOL };
    expect(() => new Harness({ model, tools: [clash], output: { mode: "tool", schema: Answer } })).toThrow(
      /reserves/,
    );
  });
});
