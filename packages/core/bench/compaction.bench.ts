import { DEFAULT_SUMMARY_INSTRUCTIONS, defineTool, Harness } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { afterAll, bench, describe } from "vitest";
import { z } from "zod";

// A long session with compaction on: every turn calls a tool that returns ~1 000 characters, the window is
// 20 000 tokens, so the transcript is summarized every few dozen turns. With compaction the transcript
// stays bounded, so the cost per turn and the heap must stay flat however long the session runs: compare
// the mean of each bench divided by its number of turns, and the heap figures printed at the end.
const WINDOW = 20_000;
const samples = new Map<number, number[]>();

const read = defineTool({
  name: "read",
  description: "Returns a block",
  inputSchema: z.object({ n: z.number().int() }),
  execute: async ({ n }) => ({ content: `block ${n} ${"r".repeat(1_000)}` }),
});

async function session(turns: number, sample = false): Promise<void> {
  let main = 0;
  const heap: number[] = [];
  const model = new ScriptedModel(
    (ctx) => {
      if (ctx.system === DEFAULT_SUMMARY_INSTRUCTIONS) return { text: `summary after ${main} turns` };
      main++;
      if (sample && main % 250 === 0) heap.push(process.memoryUsage().heapUsed);
      return main <= turns ? { toolCalls: [{ name: "read", arguments: { n: main } }] } : { text: "done" };
    },
    { record: false },
  );
  const harness = new Harness({
    model,
    tools: [read],
    limits: { maxModelRequests: turns + 1, maxToolCalls: turns, warnAt: [] },
    context: { contextWindow: WINDOW, compaction: { threshold: 0.8, keepRecentTokens: 4_000 }, spill: false },
  });
  const result = await harness.run({ prompt: "go" });
  if (result.stopReason !== "completed") throw new Error(`run ended with ${result.stopReason}`);
  if (sample) samples.set(turns, heap);
}

describe("compaction on: cost per turn as the session grows", () => {
  for (const turns of [250, 500, 2_000]) {
    bench(`${turns} turns with compaction`, () => session(turns), { time: 3_000, iterations: 3 });
  }
  bench("2000 turns, heap sampled every 250 turns", () => session(2_000, true), { iterations: 1, time: 0 });
});

afterAll(() => {
  const heap = samples.get(2_000);
  if (!heap) return;
  const mb = heap.map((bytes) => (bytes / 1024 / 1024).toFixed(1));
  console.log(`heap used (MB) at turns 250, 500, … 2000: ${mb.join(", ")}`);
});
