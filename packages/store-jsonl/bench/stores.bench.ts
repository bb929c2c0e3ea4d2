// JSONL against SQLite, side by side in one run: `pnpm --filter @bridle/store-jsonl bench`.
// Both stores run with durability "append" (fsync before each append resolves) unless a case says otherwise.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunEvent, SessionStore } from "@bridle/core";
import { SqliteSessionStore } from "@bridle/store-sqlite";
import { numberedEvent, sampleRunEvents } from "@bridle/testing";
import { test } from "vitest";
import { JsonlSessionStore } from "../src/index.js";

const root = mkdtempSync(join(tmpdir(), "bridle-store-bench-"));
// Removed at exit rather than in afterAll: deleting 10,000 session files takes longer than a hook may.
process.once("exit", () => rmSync(root, { recursive: true, force: true }));

let counter = 0;
const fresh = (): string => join(root, `case-${counter++}`);

type Kind = "jsonl" | "sqlite";
const KINDS: readonly Kind[] = ["jsonl", "sqlite"];

function open(kind: Kind, place: string, durability: "append" | "none" = "append"): Promise<SessionStore> {
  return kind === "jsonl"
    ? JsonlSessionStore.open({ dir: place, durability })
    : SqliteSessionStore.open({ path: `${place}.db`, durability });
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

// fsync per append is scaled down from 100,000 to 10,000 appends to keep the run to minutes.
test("10,000 appends of one event, fsync per append", async ({ bench }) => {
  for (const kind of KINDS) await bench(kind, () => appendAll(kind, 10_000, 1)).run(once);
});

test("100,000 events appended in batches of 100, fsync per batch", async ({ bench }) => {
  for (const kind of KINDS) await bench(kind, () => appendAll(kind, 100_000, 100)).run(once);
});

test("loading a 100,000-event session", async ({ bench }) => {
  const places: Record<Kind, string> = { jsonl: fresh(), sqlite: fresh() };
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

const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november".split(
  " ",
);

function sessionEvents(n: number): RunEvent[] {
  const word = (k: number) => WORDS[(n * 7 + k) % WORDS.length];
  return sampleRunEvents({
    runId: `r${n}`,
    prompt: `Session ${n}: please ${word(1)} the ${word(2)} module${n % 1000 === 0 ? " zanzibar" : ""}`,
    reply: `Looking at ${word(3)} and ${word(4)} first.`,
  });
}

test("search over 10,000 sessions (90,000 events)", async ({ bench }) => {
  const places: Record<Kind, string> = { jsonl: fresh(), sqlite: fresh() };
  const stores: Partial<Record<Kind, SessionStore>> = {};
  const setup = memo(async () => {
    for (const kind of KINDS) {
      const store = await open(kind, places[kind], "none");
      for (let n = 0; n < 10_000; n++) {
        await store.createSession({ id: `s${n}` });
        await store.append(`s${n}`, sessionEvents(n));
      }
      stores[kind] = store;
    }
  });
  for (const kind of KINDS) {
    await bench(`${kind}: rare term (10 sessions match)`, async () => {
      const hits = await (stores[kind] as SessionStore).search("zanzibar", { limit: 10 });
      if (hits.length !== 10) throw new Error(`found ${hits.length}`);
    }).run({ ...once, iterations: 3, setup });
  }
  for (const kind of KINDS) {
    await bench(`${kind}: two common terms, top 10`, async () => {
      const hits = await (stores[kind] as SessionStore).search("bravo module", { limit: 10 });
      if (hits.length !== 10) throw new Error(`found ${hits.length}`);
    }).run({ ...once, iterations: 3, setup });
  }
});
