// What an export costs on a 10,000-event session, beside what it cannot avoid: reading the session back
// from the store, and serialising its events once. Run: pnpm --filter @bridle/viewer bench
import { join } from "node:path";
import type { StoredEvent } from "@bridle/core";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, test } from "vitest";
import { exportSessionHtml } from "../src/index.js";
import { appendLongSession } from "../test/large.js";

let store: JsonlSessionStore;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const made = await tempWorkspace("bridle-viewer-bench-");
  cleanup = made.cleanup;
  store = await JsonlSessionStore.open({ dir: join(made.dir, "store"), durability: "none" });
  await appendLongSession(store, "long", 2_500);
});
afterAll(async () => {
  await store.close();
  await cleanup();
});

async function readAll(): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of store.read("long")) events.push(event);
  return events;
}

test("10,002 events", async ({ bench }) => {
  await bench("read the session", async () => {
    await readAll();
  }).run();
  await bench("read it and JSON.stringify the events", async () => {
    JSON.stringify(await readAll());
  }).run();
  await bench("exportSessionHtml (read, project, render the page)", async () => {
    await exportSessionHtml(store, "long");
  }).run();
});
