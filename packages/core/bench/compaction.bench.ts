import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { DEFAULT_SUMMARY_INSTRUCTIONS, defineTool, Harness } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { afterAll, test } from "vitest";
import { z } from "zod";

// A long session with compaction on: every turn calls a tool that returns ~1 000 characters, the window is
// 20 000 tokens, so the transcript is summarized every few dozen turns. With compaction the transcript
// stays bounded, so the cost per turn and the heap must stay flat however long the session runs: compare
// the mean of each bench divided by its number of turns, and the per-window figures printed at the end
// (time per turn in each window of 250 turns; heap after a full collection at the end of each window).
const WINDOW = 20_000;
const SAMPLE_EVERY = 250;
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
// The last figures of each kind (a bench runs its function more than once).
const figures = new Map<string, string>();

const read = defineTool({
  name: "read",
  description: "Returns a block",
  inputSchema: z.object({ n: z.number().int() }),
  execute: async ({ n }) => ({ content: `block ${n} ${"r".repeat(1_000)}` }),
});

type Sampling = "none" | "time" | "heap";

async function session(turns: number, sampling: Sampling = "none", compaction = true): Promise<void> {
  let main = 0;
  const samples: number[] = [];
  let windowStart = performance.now();
  const model = new ScriptedModel(
    (ctx) => {
      if (ctx.system === DEFAULT_SUMMARY_INSTRUCTIONS) return { text: `summary after ${main} turns` };
      main++;
      if (main % SAMPLE_EVERY === 0) {
        if (sampling === "heap") {
          collect();
          samples.push(process.memoryUsage().heapUsed / 1024 / 1024);
        } else if (sampling === "time") {
          const now = performance.now();
          samples.push((now - windowStart) / SAMPLE_EVERY);
          windowStart = now;
        }
      }
      return main <= turns ? { toolCalls: [{ name: "read", arguments: { n: main } }] } : { text: "done" };
    },
    { record: false },
  );
  const harness = new Harness({
    model,
    tools: [read],
    limits: { maxModelRequests: turns + 1, maxToolCalls: turns, warnAt: [] },
    context: compaction
      ? { contextWindow: WINDOW, compaction: { threshold: 0.8, keepRecentTokens: 4_000 }, spill: false }
      : { spill: false },
  });
  const result = await harness.run({ prompt: "go" });
  if (result.stopReason !== "completed") throw new Error(`run ended with ${result.stopReason}`);
  if (sampling === "time") {
    figures.set(
      "time",
      `ms per turn, windows of ${SAMPLE_EVERY} turns: ${samples.map((ms) => ms.toFixed(3)).join(", ")}`,
    );
  }
  if (sampling === "heap") {
    const label = compaction ? "compaction on " : "compaction off";
    figures.set(
      label,
      `heap MB after GC (${label}), every ${SAMPLE_EVERY} turns: ${samples.map((mb) => mb.toFixed(1)).join(", ")}`,
    );
  }
}

test("compaction on: cost per turn as the session grows", async ({ bench }) => {
  for (const turns of [250, 500, 2_000]) {
    await bench(`${turns} turns with compaction`, () => session(turns)).run({ time: 3_000, iterations: 3 });
  }
  await bench("2000 turns, time per window", () => session(2_000, "time")).run({ iterations: 1, time: 0 });
  await bench("2000 turns, heap per window", () => session(2_000, "heap")).run({ iterations: 1, time: 0 });
  await bench("2000 turns without compaction, heap per window", () => session(2_000, "heap", false)).run({
    iterations: 1,
    time: 0,
  });
});

afterAll(() => {
  for (const line of figures.values()) console.log(line);
});
