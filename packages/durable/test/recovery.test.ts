import { describe, expect, it } from "vitest";
import { skipNote, skipReason } from "./database.js";
import { recoveryTrials } from "./recovery.js";
import { workerFixture } from "./workers.js";

// A live worker takes over a run whose worker died, with nobody starting another (the full figures are
// bench/recovery.bench.ts; no clock here: the machine is shared).
describe.skipIf(skipReason !== "")(`recovery by a worker already running${skipNote}`, () => {
  const fx = workerFixture("bridle-durable-recovery-", { latencyMs: 100 });

  it("2 trials: the holder SIGKILLed mid-run, the other worker takes the run over and finishes it, each effect once", async () => {
    const trials = await recoveryTrials({
      bundle: fx.bundle,
      provider: fx.provider,
      dir: fx.dir,
      trials: 2,
      seed: 34,
      recoverEveryMs: 250,
      pollMs: 50,
    });
    console.log(`recovery sample: ${JSON.stringify(trials)}`);
    for (const trial of trials) {
      expect(trial).toMatchObject({ finishedBySurvivor: true, notOnce: 0 });
      expect(Number.isFinite(trial.takenOverMs)).toBe(true);
    }
  }, 300_000);
});
