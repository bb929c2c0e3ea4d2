import type { DatabaseSync } from "node:sqlite";
import { BridleError } from "@bridle/core";

/**
 * The schema, one step per version. A step is applied once, inside a transaction, and recorded in
 * `schema_migrations`; released steps are never edited, only followed by new ones.
 */
export const MIGRATIONS: readonly { readonly version: number; readonly sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        last_seq INTEGER NOT NULL,
        title TEXT,
        metadata TEXT,
        parent_id TEXT REFERENCES sessions(id),
        parent_seq INTEGER
      );
      CREATE INDEX sessions_by_update ON sessions(updated_at DESC, created_at DESC);
      CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL,
        has_blobs INTEGER NOT NULL DEFAULT 0,
        UNIQUE (session_id, seq)
      );
      CREATE TABLE blobs (
        hash TEXT PRIMARY KEY,
        content TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE VIRTUAL TABLE event_text USING fts5(text);
    `,
  },
];

/** Brings the database to the newest schema this package knows; refuses one written by a newer version. */
export function migrate(db: DatabaseSync, path: string): number {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
  );
  const row = db.prepare("SELECT max(version) AS version FROM schema_migrations").get() as {
    version: number | null;
  };
  const current = row.version ?? 0;
  const newest = MIGRATIONS.at(-1)?.version ?? 0;
  if (current > newest) {
    throw new BridleError(
      "store_corrupt",
      `${path} has schema version ${current}, newer than this @bridle/store-sqlite knows (${newest}): upgrade the package`,
    );
  }
  for (const step of MIGRATIONS) {
    if (step.version <= current) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another process may have migrated while we waited for the write lock.
      const done = db.prepare("SELECT 1 FROM schema_migrations WHERE version = ?").get(step.version);
      if (!done) {
        db.exec(step.sql);
        db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(
          step.version,
          Date.now(),
        );
      }
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
  return newest;
}
