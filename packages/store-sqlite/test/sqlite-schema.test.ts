import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { BridleError } from "@bridle/core";
import { sampleRunEvents, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { MIGRATIONS, SqliteSessionStore } from "../src/index.js";

let path: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const made = await tempWorkspace("bridle-sqlite-schema-");
  path = join(made.dir, "sessions.db");
  cleanup = made.cleanup;
});
afterEach(() => cleanup());

function inspect<T>(query: string): T[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(query).all() as T[];
  } finally {
    db.close();
  }
}

it("creates the schema once, records its version and journals in WAL", async () => {
  for (let i = 0; i < 2; i++) {
    const store = await SqliteSessionStore.open({ path });
    expect(store.schemaVersion).toBe(MIGRATIONS.at(-1)?.version);
    await store.close();
  }
  expect(inspect<{ version: number }>("SELECT version FROM schema_migrations").map((r) => r.version)).toEqual(
    MIGRATIONS.map((m) => m.version),
  );
  expect(inspect<{ journal_mode: string }>("PRAGMA journal_mode")[0]?.journal_mode).toBe("wal");
});

it("refuses a database written by a newer schema", async () => {
  await (await SqliteSessionStore.open({ path })).close();
  const db = new DatabaseSync(path);
  db.prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)").run(999, Date.now());
  db.close();
  const error = await SqliteSessionStore.open({ path }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BridleError);
  expect((error as BridleError).code).toBe("store_corrupt");
  expect((error as BridleError).message).toContain("999");
});

it("stores a repeated large output once and indexes message text for FTS5", async () => {
  const store = await SqliteSessionStore.open({ path });
  await store.createSession({ id: "s" });
  const big = `${"abcdefgh ".repeat(3000)}unmistakable`;
  await store.append("s", sampleRunEvents({ runId: "a", toolOutput: big }));
  await store.append("s", sampleRunEvents({ runId: "b", toolOutput: big }));
  await store.close();
  expect(inspect<{ n: number }>("SELECT count(*) AS n FROM blobs")[0]?.n).toBe(1);
  const bodies = inspect<{ body: string }>("SELECT body FROM events WHERE type = 'tool_call_completed'");
  expect(bodies.every((row) => row.body.length < 1000 && row.body.includes('"$blob"'))).toBe(true);
  expect(
    inspect<{ n: number }>("SELECT count(*) AS n FROM event_text WHERE event_text MATCH 'unmistakable'")[0]
      ?.n,
  ).toBe(2);
});

it("rolls back a failed batch whole", async () => {
  const store = await SqliteSessionStore.open({ path });
  await store.createSession({ id: "s" });
  await store.append("s", sampleRunEvents().slice(0, 2));
  const poisoned = [...sampleRunEvents().slice(2, 4), { type: "text_delta", toJSON: () => undefined }];
  // JSON.stringify of the last event yields undefined, which the NOT NULL body column rejects mid-batch.
  await expect(store.append("s", poisoned as never)).rejects.toThrow();
  expect((await store.get("s"))?.lastSeq).toBe(1);
  expect(await store.append("s", sampleRunEvents().slice(2, 3))).toEqual({ firstSeq: 2, lastSeq: 2 });
  await store.close();
});

it("makes the folders of a database path that does not exist yet (a first run on a fresh machine)", async () => {
  const nested = join(path, "..", "data", "bridle", "sessions.sqlite");
  const store = await SqliteSessionStore.open({ path: nested });
  const session = await store.createSession();
  expect((await store.list()).map((s) => s.id)).toEqual([session.id]);
  await store.close();
  const { stat } = await import("node:fs/promises");
  expect((await stat(join(path, "..", "data"))).mode & 0o777).toBe(0o700);
});
