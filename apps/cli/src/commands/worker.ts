import { launchDbosEngine } from "@bridle/durable";
import { PostgresSessionStore } from "@bridle/store-postgres";
import type { CliFlags } from "../args.js";
import { CliError } from "../cli-error.js";
import { databaseUrlOf, durableComposer, splitDurableFlags } from "../durable.js";

/**
 * `bridle worker [--concurrency N]`: pulls queued durable runs and runs them, N at a time, until SIGINT or
 * SIGTERM. It takes the run options of `bridle run`: a run's own recorded options win, these fill in the
 * rest. On start, and every few seconds, it recovers the unfinished runs of processes that are gone.
 */
export async function workerCommand(flags: CliFlags): Promise<number> {
  const { durable, rest } = splitDurableFlags(flags);
  const concurrency = durable.concurrency === undefined ? 4 : Number(durable.concurrency);
  if (!/^\d{1,3}$/.test(durable.concurrency ?? "4") || concurrency < 1 || concurrency > 256) {
    throw new CliError(`--concurrency must be a whole number from 1 to 256, not "${durable.concurrency}"`, 2);
  }
  const databaseUrl = databaseUrlOf(rest);
  const store = await PostgresSessionStore.open({
    connectionString: databaseUrl,
    max: concurrency + 2,
  }).catch((error: Error) => {
    throw new CliError(`cannot open the Postgres session store: ${error.message}`);
  });
  const engine = await launchDbosEngine({
    databaseUrl,
    concurrency,
    compose: durableComposer(rest, store),
  }).catch(async (error: Error) => {
    await store.close();
    throw new CliError(error.message);
  });
  process.stderr.write(`bridle worker ${engine.executorId}: pulling runs, ${concurrency} at a time\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  process.stderr.write("bridle worker: stopping (runs still going here are finished by another worker)\n");
  await engine.close();
  await store.close();
  return 0;
}
