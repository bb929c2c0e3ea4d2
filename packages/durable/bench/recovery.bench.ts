// The recovery bound: how long a run whose worker was SIGKILLed waits until a worker that was already
// running takes it over and records its next step, with the engine's default intervals (a look for
// orphans every 2000 ms, the queue polled every 200 ms). `pnpm --filter @bridle/durable bench`; it prints
// the figures and throws when a run was not finished by the survivor or an effect was not applied once.
import { tempWorkspace } from "@bridle/testing";
import { test } from "vitest";
import { skipReason } from "../test/database.js";
import { ScriptedProvider } from "../test/fixtures/scripted-provider.js";
import { recoveryTrials, spread } from "../test/recovery.js";
import { bundleFixture } from "../test/workers.js";

const TRIALS = 10;
const once = { time: 0, iterations: 1, warmupTime: 0, warmupIterations: 0 } as const;

async function trials(): Promise<void> {
  const { dir, cleanup } = await tempWorkspace("bridle-durable-recovery-bench-");
  const bundle = await bundleFixture();
  // Runs wait on the model, as real ones do.
  const provider = await ScriptedProvider.start({ latencyMs: 300 });
  try {
    const results = await recoveryTrials({
      bundle: bundle.file,
      provider,
      dir,
      trials: TRIALS,
      seed: Number(process.env.BRIDLE_RECOVERY_SEED ?? 100),
      recoverEveryMs: 2000,
      pollMs: 200,
    });
    console.log(`recovery after SIGKILL, ${TRIALS} trials, defaults (sweep 2000 ms, poll 200 ms):`);
    console.log(`  death seen by Postgres:        ${spread(results.map((r) => r.deathSeenMs))}`);
    console.log(`  back on the queue:             ${spread(results.map((r) => r.requeuedMs))}`);
    console.log(`  taken over by the live worker: ${spread(results.map((r) => r.takenOverMs))}`);
    console.log(`  its next step recorded:        ${spread(results.map((r) => r.nextStepMs))}`);
    const bad = results.filter((r) => !r.finishedBySurvivor || r.notOnce > 0);
    if (bad.length > 0) throw new Error(`recovery trials failed: ${JSON.stringify(bad)}`);
  } finally {
    await provider.close();
    bundle.remove();
    await cleanup();
  }
}

// Ten trials of a run taken over take minutes: far past the tests' 2-minute limit.
test.skipIf(skipReason !== "")(
  "recovery bound",
  async ({ bench }) => {
    await bench("a SIGKILLed worker's run taken over by a live one", trials).run(once);
  },
  30 * 60_000,
);
