import { BridleError } from "@bridle/core";
import type { Pool, PoolClient } from "pg";

/**
 * The schema, one step per version, written for a schema name `$S` (already quoted). A step is applied
 * once, in its own transaction, and recorded in `schema_migrations`; released steps are never edited, only
 * followed by new ones.
 */
export const MIGRATIONS: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE $S.sessions (
        id text PRIMARY KEY,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        last_seq bigint NOT NULL,
        title text,
        metadata text,
        parent_id text REFERENCES $S.sessions(id),
        parent_seq bigint
      );
      CREATE INDEX sessions_by_update ON $S.sessions (updated_at DESC, created_at DESC);
      CREATE TABLE $S.events (
        session_id text NOT NULL REFERENCES $S.sessions(id),
        seq bigint NOT NULL,
        type text NOT NULL,
        body text NOT NULL,
        has_blobs boolean NOT NULL DEFAULT false,
        search tsvector,
        PRIMARY KEY (session_id, seq)
      );
      CREATE INDEX events_search ON $S.events USING gin (search) WHERE search IS NOT NULL;
      CREATE TABLE $S.blobs (
        hash text PRIMARY KEY,
        content text NOT NULL
      );
    `,
  },
];

/**
 * Brings `schema` to the newest version this package knows, holding an advisory lock on its name so two
 * processes starting at once migrate one after the other; refuses a schema written by a newer version.
 */
export async function migrate(pool: Pool, schema: string): Promise<number> {
  const quoted = `"${schema}"`;
  const newest = MIGRATIONS.at(-1)?.version ?? 0;
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [`bridle-store:${schema}`]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)`,
      );
      const current = await currentVersion(client, quoted);
      if (current > newest) {
        throw new BridleError(
          "store_corrupt",
          `Postgres schema ${schema} has version ${current}, newer than this @bridle/store-postgres knows (${newest}): upgrade the package`,
        );
      }
      for (const step of MIGRATIONS) {
        if (step.version <= current) continue;
        await client.query("BEGIN");
        try {
          await client.query(step.sql.replaceAll("$S", quoted));
          await client.query(
            `INSERT INTO ${quoted}.schema_migrations (version, applied_at) VALUES ($1, $2)`,
            [step.version, Date.now()],
          );
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        }
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [`bridle-store:${schema}`]);
    }
  } catch (error) {
    broken = error;
    throw error;
  } finally {
    // A connection left in an unknown state is closed rather than handed back to the pool.
    client.release(broken instanceof BridleError ? undefined : (broken as Error | undefined));
  }
  return newest;
}

async function currentVersion(client: PoolClient, quoted: string): Promise<number> {
  const { rows } = await client.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${quoted}.schema_migrations`,
  );
  return rows[0]?.version ?? 0;
}
