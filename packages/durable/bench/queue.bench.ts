// Queued-run throughput with 1, 2, 4 and 8 worker processes, in one run: `pnpm --filter @bridle/durable bench`.
// Each worker pulls 2 runs at a time; 48 runs of 2 tool calls each (a 40 ms effect) against the loopback
// scripted provider answering each request in 300 ms (runs wait on the model, as real ones do), on the
// throwaway Postgres of test/postgres-server.ts (fsync on) or BRIDLE_DATABASE_URL's.
// Timed: from the first enqueue until every run is finished (workers are started before, outside it).
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "vitest";
import { DbosRunQueue } from "../src/index.js";
import { databaseUrl, freshSchema, skipReason } from "../test/database.js";
import { ScriptedProvider } from "../test/fixtures/scripted-provider.js";
import { bundleFixture, WorkerProcess } from "../test/workers.js";

const RUNS = 48;
const once = { time: 0, iterations: 1, warmupTime: 0, warmupIterations: 0 } as const;

async function throughput(workers: number): Promise<void> {
  const bundle = await bundleFixture();
  const provider = await ScriptedProvider.start({ latencyMs: 300 });
  const schema = freshSchema(`bench${workers}`);
  const args = {
    databaseUrl,
    schema,
    providerUrl: provider.baseUrl,
    logFile: join(tmpdir(), `${schema}.log`),
    concurrency: 2,
  };
  const queue = await DbosRunQueue.open({ databaseUrl, schema });
  const started = await Promise.all(
    Array.from({ length: workers }, () => WorkerProcess.start(bundle.file, args)),
  );
  try {
    const t0 = performance.now();
    const ids = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        queue.enqueue({ prompt: `calls=2 tag=b${i}`, sessionId: `b-${i}` }),
      ),
    );
    const done = await Promise.all(ids.map((id) => queue.wait(id)));
    const seconds = (performance.now() - t0) / 1000;
    if (done.some((info) => info.status !== "finished")) throw new Error("a run did not finish");
    console.log(
      `${workers} worker(s): ${RUNS} runs in ${seconds.toFixed(2)} s = ${(RUNS / seconds).toFixed(1)} runs/s`,
    );
  } finally {
    await Promise.all(started.map((worker) => worker.stop()));
    await queue.close();
    await provider.close();
    bundle.remove();
    rmSync(args.logFile, { force: true });
  }
}

// Four rounds of 48 runs take minutes: far past the tests' 2-minute limit.
test.skipIf(skipReason !== "")(
  "48 queued runs, 2 per worker at a time",
  async ({ bench }) => {
    for (const workers of [1, 2, 4, 8])
      await bench(`${workers} worker process(es)`, () => throughput(workers)).run(once);
  },
  30 * 60_000,
);
