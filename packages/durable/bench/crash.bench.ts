// The full crash campaign (test/crash-campaign.ts): 100 SIGKILLs of successive workers at chosen points,
// against the scripted provider answering in 300 ms. `pnpm --filter @bridle/durable bench`; it prints its
// counts and throws when a run is unfinished, an effect applied twice or a call lost.
import { tempWorkspace } from "@bridle/testing";
import { test } from "vitest";
import { crashCampaign } from "../test/crash-campaign.js";
import { skipReason } from "../test/database.js";
import { ScriptedProvider } from "../test/fixtures/scripted-provider.js";
import { bundleFixture } from "../test/workers.js";

const LATENCY_MS = 300;
const once = { time: 0, iterations: 1, warmupTime: 0, warmupIterations: 0 } as const;

async function campaign(): Promise<void> {
  const { dir, cleanup } = await tempWorkspace("bridle-durable-crash-bench-");
  const bundle = await bundleFixture();
  const provider = await ScriptedProvider.start({ latencyMs: LATENCY_MS });
  try {
    const result = await crashCampaign({
      bundle: bundle.file,
      provider,
      dir,
      kills: 100,
      seed: Number(process.env.BRIDLE_CRASH_SEED ?? 100),
      latencyMs: LATENCY_MS,
    });
    console.log(`crash campaign: ${JSON.stringify({ ...result, problems: result.problems.length })}`);
    if (result.problems.length > 0) throw new Error(`crash campaign failed:\n${result.problems.join("\n")}`);
  } finally {
    await provider.close();
    bundle.remove();
    await cleanup();
  }
}

// The campaign takes minutes (about 5 on a loaded 2-core machine): far past the tests' 2-minute limit.
test.skipIf(skipReason !== "")(
  "100 kills",
  async ({ bench }) => {
    await bench("crash campaign", campaign).run(once);
  },
  60 * 60_000,
);
