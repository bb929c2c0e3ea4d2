import { randomUUID } from "node:crypto";
import { DbosRunQueue, type DurableRunRequest, launchDbosEngine } from "@bridle/durable";
import { PostgresSessionStore } from "@bridle/store-postgres";
import type { CliFlags } from "../args.js";
import { CliError } from "../cli-error.js";
import { type DurableChoice, databaseUrlOf, durableComposer, recordedOptions } from "../durable.js";

/**
 * `bridle run --enqueue`: the run goes on the queue (a `bridle worker` runs it) and its id is printed.
 * `bridle run --durable`: the run executes here as a durable run; if this process stops (Ctrl-C, a crash),
 * a worker on the same database finishes it. Its answer is printed when it ends.
 */
export async function durableRun(prompt: string, choice: DurableChoice, flags: CliFlags): Promise<number> {
  const databaseUrl = databaseUrlOf(flags);
  const request: DurableRunRequest = {
    prompt,
    sessionId: flags.resume ?? flags.session ?? randomUUID(),
    options: recordedOptions(flags),
  };
  if (choice.enqueue) {
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
  const engine = await launchDbosEngine({ databaseUrl, compose: durableComposer(flags, store) }).catch(
    async (error: Error) => {
      await store.close();
      throw new CliError(error.message);
    },
  );
  const handle = await engine.start(request);
  process.stderr.write(`bridle: durable run ${handle.runId} (session ${request.sessionId})\n`);
  // Stopping here leaves the run unfinished in the database, exactly as a crash would: a worker takes it.
  process.once("SIGINT", () => {
    process.stderr.write(
      `\nbridle: left durable run ${handle.runId} to a worker (bridle worker; bridle runs wait ${handle.runId})\n`,
    );
    process.exit(130);
  });
  // Say what the run waits on, once per call: it is decided with `bridle runs approve` from anywhere.
  const told = new Set<string>();
  const watch = setInterval(() => {
    void engine.pendingApprovals(handle.runId).then(
      (pending) => {
        for (const item of pending) {
          if (told.has(item.toolCallId)) continue;
          told.add(item.toolCallId);
          process.stderr.write(
            `bridle: waits on ${item.toolName} (${item.message}): bridle runs approve ${handle.runId} ${item.toolCallId}\n`,
          );
        }
      },
      () => {},
    );
  }, 500);
  try {
    const outcome = await handle.outcome;
    process.stdout.write(`${outcome.finalText}\n`);
    if (outcome.error) process.stderr.write(`bridle: ${outcome.stopReason}: ${outcome.error.message}\n`);
    return outcome.stopReason === "completed" ? 0 : 1;
  } finally {
    clearInterval(watch);
    await engine.close();
    await store.close();
  }
}
