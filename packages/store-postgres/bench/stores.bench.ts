// Postgres beside JSONL and SQLite, in one run: `pnpm --filter @bridle/store-postgres bench`.
// Postgres runs on the throwaway loopback server test/postgres-server.ts starts (fsync and synchronous_commit
// on, as shipped), or on BRIDLE_DATABASE_URL's; JSONL and SQLite with durability "append" (fsync per append).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionStore } from "@bridle/core";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { SqliteSessionStore } from "@bridle/store-sqlite";
import { numberedEvent } from "@bridle/testing";
import { test } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { databaseUrl, skipReason } from "../test/database.js";

const root = mkdtempSync(join(tmpdir(), "bridle-pg-bench-"));
process.once("exit", () => rmSync(root, { recursive: true, force: true }));

// Postgres schemas are named apart from anything else in a BRIDLE_DATABASE_URL database, and left there
// after the run: drop the `bridle_bench_*` schemas when done.
const run = Math.random().toString(36).slice(2, 8);
let counter = 0;
const fresh = (): string => `bridle_bench_${run}_${counter++}`;

type Kind = "jsonl" | "sqlite" | "postgres";
const KINDS: readonly Kind[] = skipReason ? ["jsonl", "sqlite"] : ["jsonl", "sqlite", "postgres"];
if (skipReason) console.warn(`postgres left out of the benchmark: ${skipReason}`);

function open(kind: Kind, place: string, durability: "append" | "none" = "append"): Promise<SessionStore> {
  if (kind === "jsonl") return JsonlSessionStore.open({ dir: join(root, place), durability });
  if (kind === "sqlite") return SqliteSessionStore.open({ path: join(root, `${place}.db`), durability });
  return PostgresSessionStore.open({ connectionString: databaseUrl, schema: place, max: 2 });
}

const once = { time: 0, iterations: 1, warmupTime: 0, warmupIterations: 0 } as const;

/** Runs `prepare` once, however many benches ask: a bench that needs it first prepares it. */
function memo(prepare: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= prepare();
    return done;
  };
}
const events = Array.from({ length: 100_000 }, (_, i) => numberedEvent(i));

async function appendAll(kind: Kind, total: number, batchSize: number): Promise<void> {
  const store = await open(kind, fresh());
  await store.createSession({ id: "s" });
  for (let i = 0; i < total; i += batchSize) await store.append("s", events.slice(i, i + batchSize));
  await store.close();
}

test("2,000 appends of one event, durable per append", async ({ bench }) => {
  for (const kind of KINDS) await bench(kind, () => appendAll(kind, 2_000, 1)).run(once);
});

test("100,000 events appended in batches of 100, durable per batch", async ({ bench }) => {
  for (const kind of KINDS) await bench(kind, () => appendAll(kind, 100_000, 100)).run(once);
});

test("loading a 100,000-event session", async ({ bench }) => {
  const places: Record<Kind, string> = { jsonl: fresh(), sqlite: fresh(), postgres: fresh() };
  const setup = memo(async () => {
    for (const kind of KINDS) {
      const store = await open(kind, places[kind], "none");
      await store.createSession({ id: "long" });
      for (let i = 0; i < events.length; i += 1000) await store.append("long", events.slice(i, i + 1000));
      await store.close();
    }
  });
  for (const kind of KINDS) {
    await bench(kind, async () => {
      const store = await open(kind, places[kind]);
      let count = 0;
      for await (const _ of store.read("long")) count++;
      await store.close();
      if (count !== events.length) throw new Error(`read ${count} events`);
    }).run({ ...once, iterations: 3, setup });
  }
});
