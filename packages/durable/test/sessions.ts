// Reading what runs left behind: their sessions (Postgres store) and conditions the tests wait for.
import { setTimeout as sleep } from "node:timers/promises";
import { type Message, projectTranscript, type RunEvent } from "@bridle/core";
import { PostgresSessionStore } from "@bridle/store-postgres";
import type { DurableRunInfo, RunQueue } from "../src/index.js";
import { databaseUrl } from "./database.js";

export async function sessionEvents(schema: string, sessionId: string): Promise<RunEvent[]> {
  const store = await PostgresSessionStore.open({
    connectionString: databaseUrl,
    schema: `${schema}_sessions`,
    max: 1,
  });
  try {
    const events: RunEvent[] = [];
    for await (const stored of store.read(sessionId)) events.push(stored.event);
    return events;
  } finally {
    await store.close();
  }
}

/** The conversation a session holds, without what differs between two equal runs (ids, timings). */
export function comparable(events: readonly RunEvent[]): Message[] {
  return projectTranscript(events);
}

/** Polls `check` until it returns a value; a bound that detects a hang, not a speed target. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Waits for a run to end (finished, failed, cancelled), bounded so a run that never ends fails the test. */
export function runEnded(queue: RunQueue, runId: string, timeoutMs = 120_000): Promise<DurableRunInfo> {
  return waitFor(
    `run ${runId} to end`,
    async () => {
      const info = await queue.get(runId);
      return info && info.status !== "queued" && info.status !== "running" ? info : undefined;
    },
    timeoutMs,
  );
}
