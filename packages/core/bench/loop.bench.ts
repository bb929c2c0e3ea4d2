import { Harness } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { test } from "vitest";
import { noopTool } from "../test/helpers.js";

// Loop overhead per tool turn: a scripted model that always calls a no-op tool, so everything measured is
// the harness (event stamping, transcript projection, validation, batch execution). Divide each mean by
// its number of turns: the cost per turn must stay flat as the session grows (no per-turn copy of the
// transcript, no per-call listener left on the run's signal).
async function session(turns: number): Promise<void> {
  const model = new ScriptedModel(
    ({ index }) => (index < turns ? { toolCalls: [{ name: "noop", arguments: "{}" }] } : { text: "done" }),
    { record: false },
  );
  const harness = new Harness({
    model,
    tools: [noopTool],
    limits: { maxModelRequests: turns + 1, maxToolCalls: turns, warnAt: [] },
  });
  const result = await harness.run({ prompt: "go" });
  if (result.stopReason !== "completed") throw new Error(`run ended with ${result.stopReason}`);
}

test("loop overhead per tool turn", async ({ bench }) => {
  for (const turns of [10, 100, 1000]) {
    await bench(`${turns} turns in one session`, () => session(turns)).run({ time: 2000, iterations: 5 });
  }
});
