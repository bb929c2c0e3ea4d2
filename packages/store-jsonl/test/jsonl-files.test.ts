import { spawn } from "node:child_process";
import { appendFile, readdir, readFile, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BridleError } from "@bridle/core";
import { childBundleOptions, numberedEvent, readAll, sampleRunEvents, tempWorkspace } from "@bridle/testing";
import { build } from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlSessionStore } from "../src/index.js";

let dir: string;
let cleanup: () => Promise<void>;
const sessionFile = () => join(dir, "sessions", "s.jsonl");

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-jsonl-files-"));
});
afterEach(() => cleanup());

async function withStore<T>(
  work: (store: JsonlSessionStore) => Promise<T>,
  durability?: "append" | "batch" | "none",
) {
  const store = await JsonlSessionStore.open({ dir, ...(durability ? { durability } : {}) });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function seed(count: number): Promise<void> {
  await withStore(async (store) => {
    await store.createSession({ id: "s" });
    await store.append(
      "s",
      Array.from({ length: count }, (_, i) => numberedEvent(i)),
    );
  });
}

describe("the session file", () => {
  it("is a header line, then one line per event naming the entry it follows", async () => {
    await seed(2);
    await withStore(async (store) => {
      await store.fork("s", 0, { id: "f" });
      await store.append("f", [numberedEvent(9)]);
    });
    const lines = (await readFile(sessionFile(), "utf8"))
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ kind: "session", id: "s", format: 1 });
    expect(lines.slice(1).map((l) => [l.seq, l.parent])).toEqual([
      [0, null],
      [1, "s:0"],
    ]);
    const fork = (await readFile(join(dir, "sessions", "f.jsonl"), "utf8")).trimEnd().split("\n");
    expect(JSON.parse(fork[0] as string)).toMatchObject({ parent: { sessionId: "s", seq: 0 } });
    expect(JSON.parse(fork[1] as string)).toMatchObject({ seq: 1, parent: "s:0" });
  });

  it("skips a torn last line on load, and the next writer trims it", async () => {
    await seed(3);
    await appendFile(sessionFile(), '{"seq":3,"parent":"s:2","event":{"runId":"run-n","se');
    await withStore(async (store) => {
      expect((await readAll(store, "s")).map((s) => s.sessionSeq)).toEqual([0, 1, 2]);
      expect((await store.get("s"))?.lastSeq).toBe(2);
      expect(await store.append("s", [numberedEvent(3)])).toEqual({ firstSeq: 3, lastSeq: 3 });
    });
    const text = await readFile(sessionFile(), "utf8");
    expect(text).not.toContain('"se\n');
    expect(text.trimEnd().split("\n")).toHaveLength(5);
    await withStore(async (store) => {
      expect((await readAll(store, "s")).map((s) => s.event)).toEqual(
        [0, 1, 2, 3].map((i) => numberedEvent(i)),
      );
    });
  });

  it("keeps a complete last line whose newline never reached the disk", async () => {
    await seed(3);
    const text = await readFile(sessionFile(), "utf8");
    await truncate(sessionFile(), Buffer.byteLength(text) - 1);
    await withStore(async (store) => {
      expect((await readAll(store, "s")).map((s) => s.sessionSeq)).toEqual([0, 1, 2]);
      expect(await store.append("s", [numberedEvent(3)])).toEqual({ firstSeq: 3, lastSeq: 3 });
      expect((await readAll(store, "s")).map((s) => s.sessionSeq)).toEqual([0, 1, 2, 3]);
    });
  });

  it("loses only a damaged line, never the good ones around it, and reports it in its place", async () => {
    await seed(4);
    const lines = (await readFile(sessionFile(), "utf8")).split("\n");
    lines[2] = `${(lines[2] as string).slice(0, 20)}#garbage#`;
    await writeFile(sessionFile(), lines.join("\n"));
    await withStore(async (store) => {
      const loaded = await readAll(store, "s");
      expect(loaded.map((s) => [s.sessionSeq, s.event.type])).toEqual([
        [0, "model_response"],
        [1, "store_damage"],
        [2, "model_response"],
        [3, "model_response"],
      ]);
      expect(loaded[1]?.damage?.kind).toBe("unreadable");
      expect((await readAll(store, "s", 2)).map((s) => s.sessionSeq)).toEqual([2, 3]);
    });
  });

  it("stores a repeated large output once", async () => {
    const big = "0123456789abcdef".repeat(4096);
    await withStore(async (store) => {
      await store.createSession({ id: "s" });
      await store.append("s", sampleRunEvents({ runId: "a", toolOutput: big }));
      await store.append("s", sampleRunEvents({ runId: "b", toolOutput: big }));
    });
    const shards = await readdir(join(dir, "blobs"));
    const files = (await Promise.all(shards.map((s) => readdir(join(dir, "blobs", s))))).flat();
    expect(files).toHaveLength(1);
    expect((await readFile(sessionFile(), "utf8")).length).toBeLessThan(big.length);
  });

  it.each(["batch", "none"] as const)("records with durability %s too", async (durability) => {
    await withStore(async (store) => {
      await store.createSession({ id: "s" });
      await store.append("s", sampleRunEvents());
      await store.flush();
    }, durability);
    await withStore(async (store) => {
      expect((await readAll(store, "s")).map((s) => s.event)).toEqual(sampleRunEvents());
    });
  });

  it("refuses a writer while another process holds the session, and takes over once it dies; says who writes", async () => {
    const writer = join(dir, "writer.mjs");
    await build(childBundleOptions(join(import.meta.dirname, "fixtures", "crash-writer.ts"), writer));
    const child = spawn(process.execPath, [writer, dir, "s"], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise((resolve) => child.on("close", resolve));
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("ack ")) resolve();
      });
    });
    await withStore(async (store) => {
      expect(await store.writing("s")).toBe(true);
      const refused = await store.append("s", [numberedEvent(0)]).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(BridleError);
      expect((refused as BridleError).code).toBe("store_conflict");
      expect((refused as BridleError).message).toContain(`process ${child.pid}`);
    });
    child.kill("SIGKILL");
    await exited;
    await withStore(async (store) => {
      // The lock file is still there, but the process it names is gone: nobody writes the session.
      expect(await store.writing("s")).toBe(false);
      const lastSeq = (await store.get("s"))?.lastSeq ?? -1;
      expect(lastSeq).toBeGreaterThanOrEqual(0);
      expect(await store.append("s", [numberedEvent(0)])).toEqual({
        firstSeq: lastSeq + 1,
        lastSeq: lastSeq + 1,
      });
      expect(await store.writing("s")).toBe(true);
    });
    await withStore(async (store) => expect(await store.writing("s")).toBe(false));
  });
});
