// Rows edited or removed behind the store's back are reported where they are and cost only their entry.

import { readAll, sampleRunEvents } from "@bridle/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { databaseUrl, freshSchema, skipNote, skipReason } from "./database.js";

const big = (tag: string) => `${tag}:${"0123456789abcdef".repeat(2048)}\u0000end`;

describe.skipIf(skipReason !== "")(`damage${skipNote}`, () => {
  it("reports an unreadable row, a missing blob and an altered blob in place; the rest loads", async () => {
    const { schema, drop } = freshSchema("dmg");
    const store = await PostgresSessionStore.open({ connectionString: databaseUrl, schema });
    const sql = new pg.Client({ connectionString: databaseUrl });
    await sql.connect();
    try {
      await store.createSession({ id: "s" });
      const first = sampleRunEvents({ runId: "a", toolCallId: "ca", toolOutput: big("first") });
      const second = sampleRunEvents({ runId: "b", toolCallId: "cb", toolOutput: big("second") });
      await store.append("s", [...first, ...second]);
      // Output with a NUL character round-trips (Postgres text cannot hold one raw).
      expect((await readAll(store, "s")).map((s) => s.event)).toEqual([...first, ...second]);
      const blobs = await sql.query<{ hash: string; content: string }>(
        `SELECT hash, content FROM "${schema}".blobs`,
      );
      const firstHash = blobs.rows.find((b) => b.content.includes("first:"))?.hash;
      const secondHash = blobs.rows.find((b) => b.content.includes("second:"))?.hash;
      await sql.query(`DELETE FROM "${schema}".blobs WHERE hash = $1`, [firstHash]);
      await sql.query(`UPDATE "${schema}".blobs SET content = '"tampered"' WHERE hash = $1`, [secondHash]);
      await sql.query(`UPDATE "${schema}".events SET body = '{not json' WHERE session_id = 's' AND seq = 2`);
      const loaded = await readAll(store, "s");
      expect(loaded.map((s) => s.sessionSeq)).toEqual(loaded.map((_, i) => i));
      expect(loaded).toHaveLength(first.length + second.length);
      const damaged = loaded.filter((s) => s.damage).map((s) => [s.sessionSeq, s.damage?.kind, s.event.type]);
      expect(damaged).toEqual([
        [2, "unreadable", "store_damage"],
        [5, "blob_missing", "tool_call_completed"],
        [first.length + 5, "blob_mismatch", "tool_call_completed"],
      ]);
      // Appending the same output again repairs the altered blob.
      await store.append("s", sampleRunEvents({ runId: "c", toolCallId: "cc", toolOutput: big("second") }));
      const again = await readAll(store, "s");
      expect(again[first.length + 5]?.damage).toBeUndefined();
    } finally {
      await sql.end();
      await store.close();
      await drop();
    }
  });
});
