import { describe, expect, it } from "vitest";
import { crashCampaign } from "./crash-campaign.js";
import { skipNote, skipReason } from "./database.js";
import { workerFixture } from "./workers.js";

const LATENCY_MS = 300;

// A fixed-seed sample of the 100-kill campaign (bench/crash.bench.ts runs the full one).
describe.skipIf(skipReason !== "")(`workers killed at chosen points${skipNote}`, () => {
  const fx = workerFixture("bridle-durable-campaign-", { latencyMs: LATENCY_MS });

  it("12 kills: every run finished, no effect applied twice, none lost, each session an uninterrupted run's", async () => {
    const result = await crashCampaign({
      bundle: fx.bundle,
      provider: fx.provider,
      dir: fx.dir,
      kills: 12,
      seed: 34,
      latencyMs: LATENCY_MS,
    });
    console.log(`crash campaign sample: ${JSON.stringify({ ...result, problems: result.problems.length })}`);
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ unfinished: 0, appliedTwice: 0, lost: 0, sessionsDiffering: 0 });
  }, 600_000);
});
