// DBOS creates and migrates its tables without serializing processes: two starting at once on a fresh
// schema fail (a duplicate migration version, or a Postgres deadlock between their DDL). Every Bridle
// process that touches the schema (engines and queue clients) therefore migrates it here, one at a time,
// under an advisory lock on the schema's name held on a connection of its own; engines then launch DBOS
// with its own migrations off.
import { setTimeout as sleep } from "node:timers/promises";
import { BridleError, errorMessage } from "@bridle/core";
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { createDecisionsTableSql } from "./decision-box.js";
import { advisoryLockKey } from "./lease.js";

/** How long a process waits for another one creating or migrating the same schema, by default. */
export const DEFAULT_MIGRATE_TIMEOUT_MS = 60_000;

export interface MigrateOptions {
  readonly timeoutMs: number;
  /**
   * Run DBOS's migrations even when its tables exist (an engine, which launches DBOS without them).
   * Otherwise (a queue client) existing tables are taken as they are.
   */
  readonly always: boolean;
}

/** Brings DBOS's tables (and Bridle's decisions table) in `schema` up to date, one process at a time. */
export async function migrateSchema(
  databaseUrl: string,
  schema: string,
  options: MigrateOptions,
): Promise<void> {
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs < 0) {
    throw new BridleError(
      "invalid_config",
      `migrateTimeoutMs must be a number of milliseconds ≥ 0, not ${options.timeoutMs}`,
    );
  }
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "bridle_durable_migrate" });
  // A broken connection fails the query in flight; without a listener it would end the process.
  client.on("error", () => {});
  await client.connect();
  const [a, b] = advisoryLockKey(`bridle-durable-schema:${schema}`);
  try {
    await takeLock(client, a, b, options.timeoutMs, async () => {
      const holder = await lockHolder(databaseUrl, a, b);
      return new BridleError(
        "invalid_config",
        `waited ${Math.round(options.timeoutMs / 1000)} s for another process creating or migrating the durable tables in schema "${schema}" (${holder})`,
      );
    });
    try {
      if (options.always || !(await tablesExist(client, schema))) await quietMigrate(databaseUrl, schema);
      // Bridle's own table beside DBOS's (a schema DBOS made before it existed gets it too).
      await client.query(createDecisionsTableSql(schema));
    } finally {
      await client.query("SELECT pg_advisory_unlock($1, $2)", [a, b]);
    }
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Polls for the lock rather than waiting in pg_advisory_lock: a session waiting there is inside a
 * statement, and DBOS's CREATE INDEX CONCURRENTLY in the holder waits for every transaction under way to
 * end, so the holder and the waiters would wait on each other for ever (unseen by Postgres's detector).
 */
async function takeLock(
  client: pg.Client,
  a: number,
  b: number,
  timeoutMs: number,
  timedOut: () => Promise<Error>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await client.query<{ taken: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS taken", [
      a,
      b,
    ]);
    if (rows[0]?.taken === true) return;
    if (Date.now() >= deadline) throw await timedOut();
    await sleep(Math.min(50 + Math.random() * 100, Math.max(1, deadline - Date.now())));
  }
}

async function tablesExist(client: pg.Client, schema: string): Promise<boolean> {
  const { rows } = await client.query<{ found: string | null }>("SELECT to_regclass($1) AS found", [
    `"${schema.replaceAll('"', '""')}".workflow_status`,
  ]);
  return Boolean(rows[0]?.found);
}

/** Who holds the schema's lock, for the timeout's message (best effort: it may be gone by now). */
async function lockHolder(databaseUrl: string, a: number, b: number): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{
      pid: number;
      application_name: string;
      client_addr: string | null;
    }>(
      `SELECT a.pid, a.application_name, a.client_addr::text AS client_addr
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::int::oid AND l.objid = $2::int::oid
          AND l.objsubid = 2`,
      [a, b],
    );
    const row = rows[0];
    if (!row) return "its lock is free now";
    return `lock held by server process ${row.pid}, ${row.application_name || "no application name"}${row.client_addr ? ` from ${row.client_addr}` : ""}`;
  } catch (error) {
    return `its holder is unknown: ${errorMessage(error)}`;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * DBOS announces a migration with console.log: on stdout, it would mix with what a command prints there
 * (`bridle run --enqueue` prints the run id). The notice goes to stderr instead.
 */
async function quietMigrate(databaseUrl: string, schema: string): Promise<void> {
  const log = console.log;
  console.log = (...args: unknown[]) => console.error(...args);
  try {
    await DBOS.migrate(databaseUrl, { schemaName: schema });
  } finally {
    console.log = log;
  }
}
