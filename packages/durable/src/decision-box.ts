// Where a person's decision on a waiting run is kept until the run takes it. A run waiting on the worker
// queue does not stay in memory holding its slot: it ends, parked (parked.ts), and its continuation reads
// the decision from here. It is Bridle's own table beside DBOS's, since a DBOS message is dropped when the
// run it was sent to is rewound, and a step (which cannot receive messages) must read the decision. What
// is kept is sealed (seal.ts): a row written without the approval secret is refused by the run.
import pg from "pg";
import { advisoryLockKey } from "./lease.js";
import { isSealed, type Sealed } from "./seal.js";

/** The table, in the durable schema. Created (if missing) by every process that migrates the schema. */
export const DECISIONS_TABLE = "bridle_decisions";

export function createDecisionsTableSql(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${quoted(schema)}.${DECISIONS_TABLE} (
    run_id text NOT NULL,
    topic text NOT NULL,
    decision text NOT NULL,
    consumed boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, topic)
  )`;
}

export class DecisionBox {
  readonly #pool: pg.Pool;
  readonly #table: string;

  constructor(databaseUrl: string, schema: string) {
    // A pool: runs of one process read their decisions at once, and no client is used concurrently.
    this.#pool = new pg.Pool({ connectionString: databaseUrl, max: 2, application_name: "bridle_decisions" });
    // A broken idle connection is dropped by the pool; the next query opens another.
    this.#pool.on("error", () => {});
    this.#table = `${quoted(schema)}.${DECISIONS_TABLE}`;
  }

  /** Keeps a decision; false when one was kept for this wait already (the first one stands). */
  async put(runId: string, topic: string, decision: Sealed): Promise<boolean> {
    const { rowCount } = await this.#pool.query(
      `INSERT INTO ${this.#table} (run_id, topic, decision) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [runId, topic, JSON.stringify(decision)],
    );
    return rowCount === 1;
  }

  /** Which of these waits have a decision kept (taken or not): a wait with one is over. */
  async decided(runId: string, topics: readonly string[]): Promise<ReadonlySet<string>> {
    if (topics.length === 0) return new Set();
    const { rows } = await this.#pool.query<{ topic: string }>(
      `SELECT topic FROM ${this.#table} WHERE run_id = $1 AND topic = ANY($2::text[])`,
      [runId, [...topics]],
    );
    return new Set(rows.map((row) => row.topic));
  }

  /**
   * The decision kept for this wait, marked taken; undefined when there is none. A row that is not a
   * sealed value is returned as it is, for the run to refuse.
   */
  async take(runId: string, topic: string): Promise<unknown> {
    const { rows } = await this.#pool.query<{ decision: string }>(
      `UPDATE ${this.#table} SET consumed = true WHERE run_id = $1 AND topic = $2 RETURNING decision`,
      [runId, topic],
    );
    const text = rows[0]?.decision;
    if (text === undefined) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      return isSealed(value) ? value : text;
    } catch {
      return text;
    }
  }

  /** Decisions no run has taken yet: their runs may be parked, waiting for a continuation. */
  async untaken(limit = 100): Promise<readonly { readonly runId: string; readonly topic: string }[]> {
    const { rows } = await this.#pool.query<{ run_id: string; topic: string }>(
      `SELECT run_id, topic FROM ${this.#table} WHERE NOT consumed ORDER BY created_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({ runId: row.run_id, topic: row.topic }));
  }

  /**
   * Runs `work` while no other process runs work for `runId` here: continuing a parked run reads where
   * it waits and rewinds it, and a continuation that ran and parked again in between must not be
   * rewound to the earlier wait (its later steps, effects included, would run again).
   */
  async exclusive<T>(runId: string, work: () => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    const [a, b] = advisoryLockKey(`bridle-continue:${runId}`);
    try {
      await client.query("SELECT pg_advisory_lock($1, $2)", [a, b]);
      try {
        return await work();
      } finally {
        await client.query("SELECT pg_advisory_unlock($1, $2)", [a, b]);
      }
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.#pool.end().catch(() => {});
  }
}

function quoted(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
