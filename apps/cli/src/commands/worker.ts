import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { describeWait, launchDbosEngine } from "@bridle/durable";
import { PostgresSessionStore } from "@bridle/store-postgres";
import { CliError } from "../cli-error.js";
import { databaseUrlOf, durableComposer, splitDurableFlags } from "../run/durable.js";
import { openTracing, splitTraceFlags, type TraceChoice } from "../run/tracing.js";
import type { CliFlags } from "../settings/args.js";
import { oneLine } from "../terminal/display-text.js";

/** Set in the environment of the process that executes runs, under the one that supervises it. */
const ENGINE_PROCESS = "BRIDLE_WORKER_ENGINE";
/** How long a restart waits at first, at most, and how long an engine must live to reset the wait. */
const FIRST_WAIT_MS = 500;
const LONGEST_WAIT_MS = 15_000;
const HEALTHY_AFTER_MS = 30_000;

/**
 * `bridle worker [--concurrency N]`: pulls queued durable runs and runs them, N at a time, until SIGINT or
 * SIGTERM. It takes the run options of `bridle run`: a run's own recorded options win, these fill in the
 * rest, except where the worker's API keys go (a run naming another provider or base URL is refused). On
 * start, and every 2 s, it recovers the unfinished runs of processes that are gone. `--trace FILE` and
 * `--otlp URL` trace what runs here, as they do for `bridle run --durable`.
 *
 * The runs execute in a child process. When Postgres goes away, that process exits (its runs may have
 * been taken by others meanwhile, and its tools cannot be stopped cleanly in place); this one waits with
 * backoff and starts another, which recovers what was left. It stops only on a signal or when the child
 * reports a misconfiguration (exit code 2).
 */
export async function workerCommand(flags: CliFlags): Promise<number> {
  const { durable, rest: withTracing } = splitDurableFlags(flags);
  // Checked here, before any process starts: a bad --otlp URL is a usage error, not a restart loop.
  const { tracing, rest } = splitTraceFlags(withTracing);
  const concurrency = durable.concurrency === undefined ? 4 : Number(durable.concurrency);
  if (!/^\d{1,3}$/.test(durable.concurrency ?? "4") || concurrency < 1 || concurrency > 256) {
    throw new CliError(`--concurrency must be a whole number from 1 to 256, not "${durable.concurrency}"`, 2);
  }
  const databaseUrl = databaseUrlOf(rest);
  if (process.env[ENGINE_PROCESS] === "1") return engineProcess(rest, databaseUrl, concurrency, tracing);
  return supervise();
}

async function supervise(): Promise<number> {
  let stopping = false;
  let child: ReturnType<typeof spawn> | undefined;
  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    child?.kill(signal);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    let wait = FIRST_WAIT_MS;
    for (;;) {
      const started = Date.now();
      child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
        env: { ...process.env, [ENGINE_PROCESS]: "1" },
        // The IPC channel closes when this process dies, however it dies: the engine then stops too.
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      const code = await new Promise<number>((resolve) =>
        child?.once("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1))),
      );
      if (stopping) return code === 0 ? 0 : code;
      if (code === 2) return 2;
      if (Date.now() - started > HEALTHY_AFTER_MS) wait = FIRST_WAIT_MS;
      process.stderr.write(
        `bridle worker: the worker process ended (code ${code}${code === 70 ? ": lost the database" : ""}); starting another in ${(wait / 1000).toFixed(1)} s\n`,
      );
      await sleep(wait);
      if (stopping) return 0;
      wait = Math.min(wait * 2, LONGEST_WAIT_MS);
    }
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

/** The process that executes runs: until a signal, its supervisor's end, or the database going away. */
async function engineProcess(
  rest: CliFlags,
  databaseUrl: string,
  concurrency: number,
  traceChoice: TraceChoice,
): Promise<number> {
  const store = await PostgresSessionStore.open({
    connectionString: databaseUrl,
    max: concurrency + 2,
  }).catch((error: Error) => {
    throw new CliError(`cannot open the Postgres session store: ${oneLine(error.message)}`);
  });
  // Spans of what executes in this process; a run recovered elsewhere is traced where it finishes.
  const tracing = await openTracing(traceChoice);
  const engine = await launchDbosEngine({
    databaseUrl,
    concurrency,
    compose: durableComposer(rest, store, tracing.observers),
    onWaiting: (runId, pending) =>
      process.stderr.write(
        `bridle worker: run ${runId} waits for a person: ${oneLine(describeWait(pending), 300)}; bridle runs show ${runId}\n`,
      ),
  }).catch(async (error: Error) => {
    await tracing.close();
    await store.close();
    throw new CliError(oneLine(error.message));
  });
  process.stderr.write(`bridle worker ${engine.executorId}: pulling runs, ${concurrency} at a time\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
    process.once("disconnect", resolve);
  });
  process.stderr.write("bridle worker: stopping (runs still going here are finished by another worker)\n");
  await engine.close();
  await tracing.close();
  await store.close();
  // The channel to the supervisor would keep this process alive.
  process.disconnect?.();
  return 0;
}
