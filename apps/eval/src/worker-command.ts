// `bridle-eval worker`: pulls queued eval runs (bridle-eval run --queue) and runs them, N at a time, until
// SIGINT or SIGTERM. Several workers, on one machine or several sharing the task and temporary folders,
// share the queue.
import { parseArgs } from "node:util";
import { BridleEvalError } from "./errors.js";
import { EVAL_QUEUE_SCHEMA, evalComposer } from "./queue.js";

export async function workerCommand(argv: readonly string[]): Promise<number> {
  let values: { "database-url"?: string | undefined; concurrency?: string | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { "database-url": { type: "string" }, concurrency: { type: "string" } },
    }));
  } catch (error) {
    throw new BridleEvalError(
      "InvalidArgs",
      `${(error as Error).message}\nusage: bridle-eval worker --database-url URL [--concurrency N]`,
    );
  }
  const databaseUrl = values["database-url"] ?? process.env.BRIDLE_DATABASE_URL;
  if (!databaseUrl)
    throw new BridleEvalError(
      "InvalidArgs",
      "bridle-eval worker needs --database-url (or BRIDLE_DATABASE_URL)",
    );
  const concurrency = Number(values.concurrency ?? "2");
  if (!/^\d{1,3}$/.test(values.concurrency ?? "2") || concurrency < 1) {
    throw new BridleEvalError(
      "InvalidArgs",
      `--concurrency must be a whole number from 1, not "${values.concurrency}"`,
    );
  }
  const [{ launchDbosEngine }, { PostgresSessionStore }] = await Promise.all([
    import("@bridle/durable"),
    import("@bridle/store-postgres"),
  ]);
  const store = await PostgresSessionStore.open({ connectionString: databaseUrl, max: concurrency + 2 });
  const engine = await launchDbosEngine({
    databaseUrl,
    schema: EVAL_QUEUE_SCHEMA,
    concurrency,
    compose: evalComposer(store),
  }).catch(async (error: Error) => {
    await store.close();
    throw new BridleEvalError("InvalidArgs", `cannot start the queue worker: ${error.message}`, 1);
  });
  process.stderr.write(
    `bridle-eval worker ${engine.executorId}: pulling eval runs, ${concurrency} at a time\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await engine.close();
  await store.close();
  return 0;
}
