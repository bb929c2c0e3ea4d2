// Engines and queue clients starting at the same instant on a database whose schema does not exist yet:
// DBOS's migrations and Bridle's tables must be created once, not raced into a Postgres deadlock.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { BridleError } from "@bridle/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DbosRunQueue } from "../src/index.js";
import { advisoryLockKey } from "../src/lease.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";
import { runEnded } from "./sessions.js";
import { bundleFixture, WorkerProcess, workerFixture } from "./workers.js";

const ROUNDS = 3;
const WORKERS = 4;
const CLIENTS = 2;
/** Time for every process to load before the shared start moment (a late one still starts, just alone). */
const START_MARGIN_MS = 3_000;

interface ClientResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runClient(bundle: string, args: readonly string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [bundle, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<ClientResult>((resolve) => {
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(skipReason !== "")(
  `engines and clients starting at once on a fresh schema${skipNote}`,
  () => {
    const fx = workerFixture("bridle-durable-start-");
    let client: { file: string; remove: () => void } | undefined;
    beforeAll(async () => {
      client = await bundleFixture("client");
    });
    afterAll(() => client?.remove());

    it(`${WORKERS} workers and ${CLIENTS} enqueuing clients, ${ROUNDS} rounds: all start, none fails, every run finishes`, async () => {
      const clientBundle = client?.file ?? "";
      for (let round = 0; round < ROUNDS; round++) {
        const schema = freshSchema("start");
        const env = { BRIDLE_TEST_START_AT: String(Date.now() + START_MARGIN_MS) };
        const args = {
          databaseUrl,
          schema,
          providerUrl: fx.provider.baseUrl,
          logFile: join(fx.dir, `${schema}.log`),
          concurrency: 1,
          env,
        };
        const starting = Array.from({ length: WORKERS }, () => WorkerProcess.start(fx.bundle, args));
        const clients = Array.from({ length: CLIENTS }, (_, index) =>
          runClient(clientBundle, [databaseUrl, schema, "calls=1 tag=start", `start-${index}`], env),
        );
        const started = await Promise.allSettled(starting);
        const ended = await Promise.all(clients);
        const workers = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
        try {
          const failures = [
            ...started.flatMap((result, index) =>
              result.status === "rejected" ? [`worker ${index}: ${String(result.reason)}`] : [],
            ),
            ...ended.flatMap((result, index) =>
              result.code === 0
                ? []
                : [`client ${index} exited ${result.code}: ${result.stderr.slice(-2000)}`],
            ),
          ];
          expect(failures, `round ${round + 1} on schema ${schema}`).toEqual([]);
          const queue = await DbosRunQueue.open({ databaseUrl, schema });
          try {
            for (const result of ended) {
              const runId = /enqueued (\S+)/.exec(result.stdout)?.[1] ?? "";
              const info = await runEnded(queue, runId);
              expect(info.status, workers.map((worker) => worker.stderr).join("\n")).toBe("finished");
            }
          } finally {
            await queue.close();
          }
        } finally {
          const codes = await Promise.all(workers.map((worker) => worker.stop()));
          expect(codes).toEqual(workers.map(() => 0));
        }
        expect(workers.map((worker) => worker.stderr).join("")).not.toMatch(/deadlock/i);
      }
    }, 300_000);

    it("a process that holds the schema's migration lock too long makes the others fail, naming it", async () => {
      const schema = freshSchema("held");
      const holder = new pg.Client({ connectionString: databaseUrl, application_name: "test_lock_holder" });
      await holder.connect();
      try {
        const [a, b] = advisoryLockKey(`bridle-durable-schema:${schema}`);
        await holder.query("SELECT pg_advisory_lock($1, $2)", [a, b]);
        const { rows } = await holder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        const error = await DbosRunQueue.open({ databaseUrl, schema, migrateTimeoutMs: 600 }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(BridleError);
        expect((error as BridleError).code).toBe("invalid_config");
        expect((error as BridleError).message).toContain(`schema "${schema}"`);
        expect((error as BridleError).message).toContain(`server process ${rows[0]?.pid}, test_lock_holder`);
        await expect(
          DbosRunQueue.open({ databaseUrl, schema, migrateTimeoutMs: Number.NaN }),
        ).rejects.toThrow(/migrateTimeoutMs must be/);
        // Once it lets go, the next process migrates and opens.
        await holder.query("SELECT pg_advisory_unlock($1, $2)", [a, b]);
        const queue = await DbosRunQueue.open({ databaseUrl, schema, migrateTimeoutMs: 600 });
        expect(await queue.list()).toEqual([]);
        await queue.close();
      } finally {
        await holder.end();
      }
    });
  },
);
