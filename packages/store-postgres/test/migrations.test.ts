// The schema is versioned: processes starting together migrate once, a newer schema is refused, and the
// caller's own pool is used and left open.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, PostgresSessionStore } from "../src/index.js";
import { databaseUrl, freshSchema, migrationVersions, skipNote, skipReason } from "./database.js";

describe.skipIf(skipReason !== "")(`migrations${skipNote}`, () => {
  it("migrates once when six stores open a new schema at the same moment", async () => {
    const { schema, drop } = freshSchema("mig");
    try {
      const stores = await Promise.all(
        Array.from({ length: 6 }, () =>
          PostgresSessionStore.open({ connectionString: databaseUrl, schema, max: 1 }),
        ),
      );
      expect(stores.map((s) => s.schemaVersion)).toEqual(stores.map(() => MIGRATIONS.at(-1)?.version));
      await Promise.all(stores.map((s) => s.close()));
      expect(await migrationVersions(schema)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await drop();
    }
  });

  it("refuses a schema written by a newer version, and bad options", async () => {
    const { schema, drop } = freshSchema("mig");
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    try {
      const store = await PostgresSessionStore.open({ pool, schema });
      await store.createSession({ id: "kept" });
      await store.close();
      // The caller's pool stays open after close.
      await pool.query(`INSERT INTO "${schema}".schema_migrations VALUES (9999, 0)`);
      await expect(PostgresSessionStore.open({ pool, schema })).rejects.toMatchObject({
        code: "store_corrupt",
      });
      await expect(PostgresSessionStore.open({ pool, schema: 'x"; DROP' })).rejects.toMatchObject({
        code: "invalid_argument",
      });
      await expect(PostgresSessionStore.open({ schema })).rejects.toMatchObject({ code: "invalid_argument" });
      await expect(
        PostgresSessionStore.open({ connectionString: databaseUrl, max: 0 }),
      ).rejects.toMatchObject({
        code: "invalid_argument",
      });
      await expect(
        PostgresSessionStore.open({ connectionString: "postgres://nobody@127.0.0.1:1/none", schema }),
      ).rejects.toMatchObject({ code: "store_write" });
    } finally {
      await pool.end();
      await drop();
    }
  });
});
