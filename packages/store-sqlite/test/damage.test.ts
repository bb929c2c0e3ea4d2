// Rows edited or removed behind the store's back are reported where they are and cost only their entry.
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { StoredEvent } from "@bridle/core";
import { readAll, sampleRunEvents, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteSessionStore } from "../src/index.js";

let path: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  const made = await tempWorkspace("bridle-sqlite-damage-");
  path = join(made.dir, "sessions.db");
  cleanup = made.cleanup;
});
afterEach(() => cleanup());

const big = (tag: string) => `${tag}:${"0123456789abcdef".repeat(2048)}`;

async function seed(): Promise<void> {
  const store = await SqliteSessionStore.open({ path });
  await store.createSession({ id: "s" });
  await store.append("s", sampleRunEvents({ runId: "a", toolCallId: "ca", toolOutput: big("first") }));
  await store.append("s", sampleRunEvents({ runId: "b", toolCallId: "cb", toolOutput: big("second") }));
  await store.close();
}

/** Edits the database as another program would. */
function edit(sql: string, ...params: string[]): void {
  const db = new DatabaseSync(path);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

async function load(): Promise<StoredEvent[]> {
  const store = await SqliteSessionStore.open({ path });
  try {
    return await readAll(store, "s");
  } finally {
    await store.close();
  }
}

function outputs(loaded: readonly StoredEvent[]): string[] {
  return loaded.flatMap((s) =>
    s.event.type === "tool_call_completed"
      ? s.event.result.content.flatMap((part) => (part.type === "text" ? [part.text] : []))
      : [],
  );
}

describe("damage in a SQLite session", () => {
  it("a deleted blob row costs only its entry: a placeholder, reported as blob_missing", async () => {
    await seed();
    edit("DELETE FROM blobs WHERE content LIKE 'first:%'");
    const loaded = await load();
    expect(loaded.filter((s) => s.damage).map((s) => s.damage?.kind)).toEqual(["blob_missing"]);
    const [first, second] = outputs(loaded);
    expect(first).toMatch(/which is missing from the session store/);
    expect(second).toBe(big("second"));
  });

  it("an edited blob is not shown: a placeholder, reported as blob_mismatch; the next write repairs it", async () => {
    await seed();
    edit("UPDATE blobs SET content = replace(content, 'second:', 'SECOND:') WHERE content LIKE 'second:%'");
    const loaded = await load();
    expect(loaded.filter((s) => s.damage).map((s) => s.damage?.kind)).toEqual(["blob_mismatch"]);
    const [first, second] = outputs(loaded);
    expect(first).toBe(big("first"));
    expect(second).toMatch(/no longer matches its hash/);
    // Storing the same output again puts the right content back under its hash.
    const store = await SqliteSessionStore.open({ path });
    await store.append("s", sampleRunEvents({ runId: "c", toolCallId: "cc", toolOutput: big("second") }));
    await store.close();
    const repaired = await load();
    expect(repaired.some((s) => s.damage)).toBe(false);
    expect(outputs(repaired)).toEqual([big("first"), big("second"), big("second")]);
  });

  it.each([
    ["not JSON", "{not json"],
    ["JSON but no event", "[1,2,3]"],
    ["an object without a type", '{"runId":"a"}'],
  ])("a row whose body is %s is reported in its place; the others load", async (_, body) => {
    await seed();
    const before = await load();
    edit("UPDATE events SET body = ? WHERE session_id = 's' AND seq = 1", body);
    const loaded = await load();
    expect(loaded.map((s) => s.sessionSeq)).toEqual(before.map((s) => s.sessionSeq));
    expect(loaded[1]?.event.type).toBe("store_damage");
    expect(loaded[1]?.damage?.kind).toBe("unreadable");
    expect(loaded[1]?.damage?.message).toMatch(/session "s" at 1 is unreadable/);
    expect(loaded[1]?.event.runId).toBe(before[0]?.event.runId);
    expect(loaded.filter((_, i) => i !== 1).map((s) => s.event)).toEqual(
      before.filter((_, i) => i !== 1).map((s) => s.event),
    );
  });
});
