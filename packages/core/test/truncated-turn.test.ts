import { existsSync } from "node:fs";
import { join } from "node:path";
import { defineTool, Harness } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectWellFormed, resultText } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

function writer(ran: string[]) {
  return defineTool({
    name: "write_file",
    description: "writes a file",
    inputSchema: z.object({ path: z.string(), content: z.string() }),
    annotations: { requires_approval: true },
    execute: async ({ path, content }, ctx) => {
      ran.push(path);
      await import("node:fs/promises").then((fs) => fs.writeFile(join(ctx.workspace.root, path), content));
      return { content: "written" };
    },
  });
}

describe("a turn cut off at max_tokens", () => {
  it("answers every call as truncated, runs none, asks no approval, and lets the model try again", async () => {
    const ran: string[] = [];
    const asked: string[] = [];
    // Both calls parse and validate: the cut fell after the JSON closed, or the model closed it early.
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "write_file", arguments: { path: "a.txt", content: "first half of the fi" } },
          { name: "write_file", arguments: { path: "b.txt", content: "x" } },
        ],
        stopReason: "max_tokens",
      },
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "small" } }] },
      { text: "done" },
    ]);
    const harness = new Harness({
      model,
      tools: [writer(ran)],
      workspace: dir,
      approver: {
        decide: async (request) => {
          asked.push(request.toolCall.id);
          return { approved: true };
        },
      },
    });
    const stream = harness.stream({ prompt: "write a.txt" });
    const events = await collectEvents(stream);
    const result = await stream.result;

    expect(result.stopReason).toBe("completed");
    expect(ran).toEqual(["a.txt"]);
    expect(asked).toHaveLength(1);
    expect(existsSync(join(dir, "b.txt"))).toBe(false);
    const truncated = events.flatMap((e) =>
      e.type === "tool_call_completed" && e.result.isError ? [e.result] : [],
    );
    expect(truncated).toHaveLength(2);
    for (const message of truncated) {
      expect(message.errorKind).toBe("InvalidInput");
      expect(resultText(message)).toMatch(/was truncated.*max_tokens.*smaller/s);
    }
    // Each truncated call was recorded before its answer, and the second request carried both answers.
    const requested = events.filter((e) => e.type === "tool_call_requested");
    expect(requested).toHaveLength(3);
    expect(model.requests[1]?.messages.filter((m) => m.role === "tool")).toHaveLength(2);
    expectWellFormed(result.messages);
    expect(result.usage.toolRetries.write_file).toBe(2);
  });

  it("ends at the tool's retry budget when every turn is cut off", async () => {
    const ran: string[] = [];
    const cut = {
      toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "…" } }],
      stopReason: "max_tokens" as const,
    };
    const model = new ScriptedModel([cut, cut, cut, cut]);
    const tool = { ...writer(ran), retryBudget: 2, annotations: {} };
    const result = await new Harness({ model, tools: [tool], workspace: dir }).run({ prompt: "go" });
    expect(ran).toEqual([]);
    expect(result.stopReason).toBe("tool_retries_exceeded");
    expectWellFormed(result.messages);
  });

  it("still runs the calls of a turn that ended for another reason", async () => {
    const ran: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "ok" } }] },
      { text: "done" },
    ]);
    const tool = { ...writer(ran), annotations: {} };
    const result = await new Harness({ model, tools: [tool], workspace: dir }).run({ prompt: "go" });
    expect(result.stopReason).toBe("completed");
    expect(ran).toEqual(["a.txt"]);
  });

  describe("in tool output mode", () => {
    const Answer = z.object({ city: z.string() });
    const output = { mode: "tool" as const, schema: Answer };

    it("never accepts a final_result from the cut turn: it is answered as truncated and asked again", async () => {
      // The cut answer parses and validates: only the stop reason says it may be short.
      const model = new ScriptedModel([
        {
          toolCalls: [{ name: "final_result", arguments: { city: "Par" } }],
          stopReason: "max_tokens",
        },
        { toolCalls: [{ name: "final_result", arguments: { city: "Paris" } }] },
      ]);
      const stream = new Harness({ model, workspace: dir, output }).stream({ prompt: "which city?" });
      const events = await collectEvents(stream);
      const result = await stream.result;

      expect(result.stopReason).toBe("completed");
      expect(result.output).toEqual({ city: "Paris" });
      const answers = events.flatMap((e) => (e.type === "tool_call_completed" ? [e.result] : []));
      expect(answers).toHaveLength(2);
      expect(answers[0]?.isError).toBe(true);
      expect(answers[0]?.errorKind).toBe("InvalidInput");
      expect(resultText(answers[0] as (typeof answers)[number])).toMatch(
        /"final_result" was truncated.*max_tokens.*not run/s,
      );
      expect(answers[1]?.isError).toBe(false);
      expect(events.filter((e) => e.type === "output_retry")).toMatchObject([
        { attempt: 1, problems: [expect.stringMatching(/final_result was truncated/)] },
      ]);
      // The model saw the truncation answer before it answered again.
      const seen = model.requests[1]?.messages.filter((m) => m.role === "tool") ?? [];
      expect(seen.map((m) => resultText(m))).toEqual([expect.stringMatching(/was truncated/)]);
      expectWellFormed(result.messages);
    });

    it("answers a final_result beside other calls as truncated too, and runs none of them", async () => {
      const ran: string[] = [];
      const model = new ScriptedModel([
        {
          toolCalls: [
            { name: "write_file", arguments: { path: "a.txt", content: "x" } },
            { name: "final_result", arguments: { city: "Paris" } },
          ],
          stopReason: "max_tokens",
        },
        { toolCalls: [{ name: "final_result", arguments: { city: "Rome" } }] },
      ]);
      const tool = { ...writer(ran), annotations: {} };
      const stream = new Harness({ model, tools: [tool], workspace: dir, output }).stream({ prompt: "go" });
      const events = await collectEvents(stream);
      const result = await stream.result;

      expect(ran).toEqual([]);
      expect(result.output).toEqual({ city: "Rome" });
      const failed = events.flatMap((e) =>
        e.type === "tool_call_completed" && e.result.isError ? [resultText(e.result)] : [],
      );
      expect(failed).toEqual([
        expect.stringMatching(/"final_result" was truncated/),
        expect.stringMatching(/"write_file" was truncated/),
      ]);
      expectWellFormed(result.messages);
    });

    it("ends at the output retry budget, with no output, when every answer is cut off", async () => {
      const cut = {
        toolCalls: [{ name: "final_result", arguments: { city: "Paris" } }],
        stopReason: "max_tokens" as const,
      };
      const model = new ScriptedModel([cut, cut, cut, cut]);
      const result = await new Harness({
        model,
        workspace: dir,
        output,
        limits: { outputRetries: 1 },
      }).run({ prompt: "which city?" });
      expect(result.stopReason).toBe("output_retries_exceeded");
      expect(result.output).toBeUndefined();
      expect(model.requests).toHaveLength(2);
      expectWellFormed(result.messages);
    });
  });
});
