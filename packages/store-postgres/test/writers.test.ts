// Several real processes appending to one session at once: the row lock must give gapless, unshared,
// uninterleaved sequence numbers, and every acknowledged batch must be stored exactly as written.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { numberedEvent, readAll, tempWorkspace } from "@bridle/testing";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS, PostgresSessionStore } from "../src/index.js";
import {
  childBundle,
  databaseUrl,
  freshSchema,
  migrationVersions,
  skipNote,
  skipReason,
} from "./database.js";

describe.skipIf(skipReason !== "")(`several writer processes${skipNote}`, () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let writer: string;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-pg-writers-"));
    writer = join(dir, "writer.mjs");
    await build(childBundle(join(import.meta.dirname, "fixtures", "writer.ts"), writer));
  });
  afterAll(() => cleanup());

  function runWriter(schema: string, id: number, batches: number): Promise<string[]> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [writer, databaseUrl, schema, "shared", String(id), String(batches)],
        {
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let out = "";
      let err = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        err += chunk.toString();
      });
      child.on("close", (code) => {
        if (code === 0) resolve(out.trim().split("\n"));
        else reject(new Error(`writer ${id} exited ${code}: ${err.slice(-2000)}`));
      });
    });
  }

  it("4 processes appending 150 batches each to one session: gapless, no duplicates, batches whole", async () => {
    const { schema, drop } = freshSchema("writers");
    const store = await PostgresSessionStore.open({ connectionString: databaseUrl, schema });
    try {
      await store.createSession({ id: "shared" });
      const writers = [0, 1, 2, 3];
      const acks = await Promise.all(writers.map((id) => runWriter(schema, id, 150)));
      const stored = await readAll(store, "shared");
      expect(stored.map((s) => s.sessionSeq)).toEqual(stored.map((_, i) => i));
      let total = 0;
      const ranges: [number, number][] = [];
      for (const [id, lines] of acks.entries()) {
        expect(lines).toHaveLength(150);
        for (const line of lines) {
          const [firstSeq, lastSeq, k] = line.split(" ").slice(1).map(Number) as [number, number, number];
          ranges.push([firstSeq, lastSeq]);
          total += lastSeq - firstSeq + 1;
          // The batch sits whole at the place its append reported, exactly as the writer made it.
          expect(stored.slice(firstSeq, lastSeq + 1).map((s) => s.event)).toEqual(
            Array.from({ length: lastSeq - firstSeq + 1 }, (_, i) => numberedEvent(k + i, `w${id}`)),
          );
        }
      }
      expect(total).toBe(stored.length);
      ranges.sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < ranges.length; i++) expect(ranges[i]?.[0]).toBe((ranges[i - 1]?.[1] ?? 0) + 1);
      // Each writer's events appear once each, in the order it wrote them.
      for (const id of writers) {
        const mine = stored.filter((s) => s.event.runId === `w${id}`).map((s) => s.event.seq);
        expect(mine).toEqual(mine.map((_, i) => i));
      }
      expect((await store.get("shared"))?.lastSeq).toBe(stored.length - 1);
    } finally {
      await store.close();
      await drop();
    }
  });

  it("4 processes starting together on an empty schema migrate it once and share one session", async () => {
    const { schema, drop } = freshSchema("writers");
    try {
      const acks = await Promise.all([0, 1, 2, 3].map((id) => runWriter(schema, id, 10)));
      const store = await PostgresSessionStore.open({ connectionString: databaseUrl, schema });
      try {
        const stored = await readAll(store, "shared");
        const written = acks.flat().reduce((sum, line) => {
          const [firstSeq, lastSeq] = line.split(" ").slice(1).map(Number) as [number, number];
          return sum + lastSeq - firstSeq + 1;
        }, 0);
        expect(stored.map((s) => s.sessionSeq)).toEqual(Array.from({ length: written }, (_, i) => i));
      } finally {
        await store.close();
      }
      expect(await migrationVersions(schema)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await drop();
    }
  });
});
