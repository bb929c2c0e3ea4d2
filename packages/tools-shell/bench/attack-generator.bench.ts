import { test } from "vitest";
import { formatReport, runCampaign } from "../test/attack-generator/campaign.js";
import { bashToolPolicy, checkCommandPolicy, type PolicyUnderTest } from "../test/attack-generator/judges.js";

// The compositional attack generator (test/attack-generator) past CI's fixed seed: a new seed each run
// (printed; BRIDLE_ATTACK_SEED replays one) and BRIDLE_ATTACK_SEQUENCES sequences (default 20,000) against
// the bash tool's local policy, a tenth of that against checkCommand's default. Each run prints its report
// (classes found, each shrunk to its shortest sequence) and sequences per second; a class found fails it.

const SEQUENCES = Number(process.env.BRIDLE_ATTACK_SEQUENCES ?? 20_000);
const SEED = Number(process.env.BRIDLE_ATTACK_SEED ?? Date.now() % 2_147_483_647);
const ONCE = { iterations: 1, warmupIterations: 0, time: 0, warmupTime: 0 };

async function campaign(policy: PolicyUnderTest, sequences: number): Promise<void> {
  const started = performance.now();
  try {
    const report = await runCampaign({
      seed: SEED,
      sequences,
      policy,
      ...(process.env.BRIDLE_ATTACK_FINDINGS ? { findingsFile: process.env.BRIDLE_ATTACK_FINDINGS } : {}),
    });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${formatReport(report)}\n${(sequences / seconds).toFixed(1)} sequences/s (${seconds.toFixed(0)} s)`,
    );
    if (report.failing > 0)
      throw new Error(`${report.failing} sequences did harm (seed ${SEED}): see the report above`);
  } finally {
    await policy.close();
  }
}

test(`compositional attacks, seed ${SEED}`, async ({ bench }) => {
  await bench(`${SEQUENCES} sequences, the bash tool's local policy`, async () =>
    campaign(await bashToolPolicy(), SEQUENCES),
  ).run(ONCE);
  await bench(`${Math.ceil(SEQUENCES / 10)} sequences, checkCommand's default policy`, async () =>
    campaign(checkCommandPolicy(), Math.ceil(SEQUENCES / 10)),
  ).run(ONCE);
});
