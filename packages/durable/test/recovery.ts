// How long a run whose worker died waits before a live worker takes it over: the shared body of the
// recovery test (a small sample, no clock in its assertions) and bench/recovery.bench.ts (the figures).
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { DbosRunQueue } from "../src/index.js";
import { advisoryLockKey } from "../src/lease.js";
import { databaseUrl, freshSchema } from "./database.js";
import { diagnosis } from "./diagnosis.js";
import { readEffects } from "./fixtures/effect-tools.js";
import type { ScriptedProvider } from "./fixtures/scripted-provider.js";
import { runEnded, waitFor } from "./sessions.js";
import { WorkerProcess } from "./workers.js";

/** Calls of each trial's run: enough that it is still going when its worker is killed. */
const CALLS = 16;

export interface RecoveryOptions {
  readonly bundle: string;
  readonly provider: ScriptedProvider;
  readonly dir: string;
  readonly trials: number;
  /** Picks each kill's moment within the survivor's sweep period (a fixed seed: the same trials). */
  readonly seed: number;
  /** The workers' sweep and poll intervals (the engine's defaults: 2000 and 200 ms). */
  readonly recoverEveryMs: number;
  readonly pollMs: number;
}

export interface RecoveryTrial {
  /** From the SIGKILL until Postgres freed the dead worker's lease lock (its death visible to others, ms). */
  readonly deathSeenMs: number;
  /** From the SIGKILL until the run was back on the queue or held by another worker (ms). */
  readonly requeuedMs: number;
  /** From the SIGKILL until the surviving worker held the run (ms, polled every 10 ms). */
  readonly takenOverMs: number;
  /** From the SIGKILL until the surviving worker recorded the run's next step (ms). */
  readonly nextStepMs: number;
  /** Whether the surviving worker, already running before the kill, finished the run. */
  readonly finishedBySurvivor: boolean;
  /** Calls of the run whose effect was applied other than once. */
  readonly notOnce: number;
}

/**
 * Each trial: two workers; the run starts on the first (the second starts once it has), the first is
 * SIGKILLed right after an effect lands, at a moment spread over the survivor's sweep period (its sweeps
 * run from its start, so a kill at a fixed time after that would always meet the same phase), and no
 * worker is started after that: the survivor's periodic look for orphans must find the run.
 */
export async function recoveryTrials(options: RecoveryOptions): Promise<RecoveryTrial[]> {
  const trials: RecoveryTrial[] = [];
  let state = options.seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
  for (let trial = 0; trial < options.trials; trial++) {
    const schema = freshSchema("recovery");
    const logFile = join(options.dir, `${schema}.log`);
    const args = {
      databaseUrl,
      schema,
      providerUrl: options.provider.baseUrl,
      logFile,
      concurrency: 1,
      env: {
        BRIDLE_TEST_RECOVER_EVERY_MS: String(options.recoverEveryMs),
        BRIDLE_TEST_POLL_MS: String(options.pollMs),
      },
    };
    const queue = await DbosRunQueue.open({ databaseUrl, schema });
    const workers: WorkerProcess[] = [];
    const runIds: string[] = [];
    try {
      const holder = await WorkerProcess.start(options.bundle, args);
      workers.push(holder);
      const runId = await queue.enqueue({
        prompt: `calls=${CALLS} tag=rc${trial}`,
        sessionId: `recovery-${trial}`,
      });
      runIds.push(runId);
      await waitFor("the run's first effect", () => (readEffects(logFile).length > 0 ? true : undefined));
      const survivor = await WorkerProcess.start(options.bundle, args);
      workers.push(survivor);
      await sleep(2 * options.pollMs + next() * options.recoverEveryMs);
      const landed = readEffects(logFile).filter((line) => line.event === "applied").length;
      await waitFor("the run's next effect", () =>
        readEffects(logFile).filter((line) => line.event === "applied").length > landed ? true : undefined,
      );
      const before = await queue.get(runId);
      if (before?.executor !== holder.executorId) throw new Error("the run is not on the first worker");
      const lease = new pg.Client({ connectionString: databaseUrl });
      await lease.connect();
      const [a, b] = advisoryLockKey(`bridle-executor:${holder.executorId}`);
      const killedAt = Date.now();
      await holder.kill();
      let deathSeenMs: number | undefined;
      // The lock is taken and let go at once: the survivor's sweep must find it free.
      while (deathSeenMs === undefined) {
        const { rows } = await lease.query<{ taken: boolean }>(
          "SELECT pg_try_advisory_lock($1, $2) AS taken",
          [a, b],
        );
        if (rows[0]?.taken) {
          deathSeenMs = Date.now() - killedAt;
          await lease.query("SELECT pg_advisory_unlock($1, $2)", [a, b]);
        } else await sleep(5);
      }
      await lease.end();
      let requeuedMs: number | undefined;
      let takenOverMs: number | undefined;
      let nextStepMs: number | undefined;
      while (nextStepMs === undefined) {
        const info = await queue.get(runId);
        const now = Date.now();
        if (info?.status === "queued" || (info?.executor && info.executor !== holder.executorId)) {
          requeuedMs ??= now - killedAt;
        }
        if (info?.executor === survivor.executorId) {
          takenOverMs ??= now - killedAt;
          const at = info.lastStep?.at;
          if (at !== undefined && at > killedAt) nextStepMs = at - killedAt;
        }
        if (info?.status === "finished" || now - killedAt > 120_000) nextStepMs ??= now - killedAt;
        await sleep(10);
      }
      const ended = await runEnded(queue, runId);
      const effects = readEffects(logFile).filter((line) => line.event === "applied");
      const keys = new Set(effects.map((line) => line.key));
      trials.push({
        deathSeenMs,
        requeuedMs: requeuedMs ?? Number.NaN,
        takenOverMs: takenOverMs ?? Number.NaN,
        nextStepMs,
        finishedBySurvivor: ended.status === "finished" && ended.executor === survivor.executorId,
        notOnce:
          [...keys].filter((key) => effects.filter((line) => line.key === key).length !== 1).length +
          (CALLS - keys.size),
      });
      await survivor.stop();
    } catch (error) {
      console.error(`recovery trial failed:\n${await diagnosis(schema, runIds, logFile, workers)}`);
      throw error;
    } finally {
      await Promise.all(
        workers
          .filter((worker) => worker.child.exitCode === null && worker.child.signalCode === null)
          .map((worker) => worker.kill()),
      );
      await queue.close();
    }
  }
  return trials;
}

/** min / median / max of some milliseconds, for a line of the bench's output. */
export function spread(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  return `min ${sorted[0]} ms, median ${median} ms, max ${sorted.at(-1)} ms`;
}
