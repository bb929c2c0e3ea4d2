import { randomUUID } from "node:crypto";
import { DbosRunQueue, type DurableRunRequest, launchDbosEngine } from "@bridle/durable";
import { PostgresSessionStore } from "@bridle/store-postgres";
import { CliError } from "../cli-error.js";
import { type DurableChoice, databaseUrlOf, durableComposer, recordedOptions } from "../run/durable.js";
import { openTracing, splitTraceFlags } from "../run/tracing.js";
import type { CliFlags } from "../settings/args.js";
import { oneLine, visible } from "../terminal/display-text.js";

/**
 * `bridle run --enqueue`: the run goes on the queue (a `bridle worker` runs it) and its id is printed.
 * `bridle run --durable`: the run executes here as a durable run; if this process stops (Ctrl-C, a crash),
 * a worker on the same database finishes it. Its answer is printed when it ends.
 */
export async function durableRun(
  prompt: string,
  choice: DurableChoice,
  withTracing: CliFlags,
): Promise<number> {
  const { tracing: traceChoice, rest: flags } = splitTraceFlags(withTracing);
  const databaseUrl = databaseUrlOf(flags);
  const request: DurableRunRequest = {
    prompt,
    sessionId: flags.resume ?? flags.session ?? randomUUID(),
    options: recordedOptions(flags),
  };
  if (choice.enqueue) {
    if (traceChoice.file || traceChoice.otlp)
      throw new CliError("a queued run is not traced here: --trace and --otlp go with --durable", 2);
    const queue = await DbosRunQueue.open({ databaseUrl }).catch((error: Error) => {
      throw new CliError(`cannot reach the durable runs' database: ${error.message}`);
    });
    try {
      process.stdout.write(`${await queue.enqueue(request)}\n`);
      return 0;
    } finally {
      await queue.close();
    }
  }
  const store = await PostgresSessionStore.open({ connectionString: databaseUrl, max: 4 }).catch(
    (error: Error) => {
      throw new CliError(`cannot open the Postgres session store: ${error.message}`);
    },
  );
  // Spans of what runs in this process: a run a worker finishes after this one stops is not traced here.
  const tracing = await openTracing(traceChoice);
  // Says what the run waits on when it starts waiting: it is decided with `bridle runs approve` from anywhere.
  const engine = await launchDbosEngine({
    databaseUrl,
    compose: durableComposer(flags, store, tracing.observers),
    onWaiting: (runId, item) =>
      process.stderr.write(
        `bridle: waits on ${oneLine(item.toolName, 80)} (${oneLine(item.message, 300)}): bridle runs approve ${runId} ${oneLine(item.toolCallId, 200)}\n`,
      ),
  }).catch(async (error: Error) => {
    await tracing.close();
    await store.close();
    throw new CliError(error.message);
  });
  const handle = await engine.start(request);
  process.stderr.write(`bridle: durable run ${handle.runId} (session ${request.sessionId})\n`);
  // Stopping here leaves the run unfinished in the database, exactly as a crash would: a worker takes it.
  process.once("SIGINT", () => {
    process.stderr.write(
      `\nbridle: left durable run ${handle.runId} to a worker (bridle worker; bridle runs wait ${handle.runId})\n`,
    );
    process.exit(130);
  });
  try {
    const outcome = await handle.outcome;
    process.stdout.write(`${visible(outcome.finalText)}\n`);
    if (outcome.error)
      process.stderr.write(`bridle: ${outcome.stopReason}: ${visible(outcome.error.message)}\n`);
    return outcome.stopReason === "completed" ? 0 : 1;
  } finally {
    await engine.close();
    await tracing.close();
    await store.close();
  }
}
