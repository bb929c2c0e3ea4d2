import { defineTool, Harness, type RunEvent } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";

// A sink with writeBatch gets the events a run emits together in one call: a store writes them in one
// append. Every event still arrives once, in order, and all of them before a tool call executes.

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-sink-batches-"));
});
afterEach(() => cleanup());

function probeTool(seen: () => readonly RunEvent[], log: string[][]) {
  return defineTool({
    name: "probe",
    description: "records which events the sink had when it ran",
    inputSchema: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      log.push(seen().map((event) => event.type));
      return { content: `ran ${n}` };
    },
  });
}

describe("a sink with writeBatch", () => {
  it("gets each event once, in order, in fewer calls than events, and all before a tool runs", async () => {
    const batches: RunEvent[][] = [];
    const recorded = () => batches.flat();
    const atExecute: string[][] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "probe", arguments: { n: 1 } }] },
      {
        toolCalls: [
          { name: "probe", arguments: { n: 2 } },
          { name: "probe", arguments: { n: 3 } },
        ],
      },
      { text: "done" },
    ]);
    const emitted: RunEvent[] = [];
    const stream = new Harness({ model, tools: [probeTool(recorded, atExecute)], workspace: dir }).stream({
      prompt: "go",
      sink: {
        write: () => {
          throw new Error("write is not called when writeBatch exists");
        },
        writeBatch: async (events) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          batches.push([...events]);
        },
      },
    });
    for await (const event of stream) emitted.push(event);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    expect(recorded().map((event) => event.seq)).toEqual(emitted.map((event) => event.seq));
    expect(batches.length).toBeLessThan(emitted.length);
    expect(batches.some((batch) => batch.length > 1)).toBe(true);
    // When each call executed, its own tool_call_requested had been recorded.
    expect(atExecute).toHaveLength(3);
    for (const [index, types] of atExecute.entries()) {
      expect(types.filter((type) => type === "tool_call_requested").length).toBeGreaterThanOrEqual(
        index === 0 ? 1 : 3,
      );
    }
  });

  it("a failing writeBatch ends the run as store_error before any tool runs", async () => {
    let executed = false;
    const tool = defineTool({
      name: "t",
      description: "t",
      inputSchema: z.object({}),
      execute: async () => {
        executed = true;
        return { content: "ran" };
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "t" }] }, { text: "ok" }]);
    const result = await new Harness({ model, tools: [tool], workspace: dir }).run({
      prompt: "go",
      sink: {
        write: () => {},
        writeBatch: (events) => {
          if (events.some((event) => event.type === "tool_call_requested")) throw new Error("disk full");
        },
      },
    });
    expect(result.stopReason).toBe("store_error");
    expect(result.error?.message).toMatch(/disk full/);
    expect(executed).toBe(false);
  });
});
