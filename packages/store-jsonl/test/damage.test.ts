// Damage on disk is reported where it is, and costs only what it touched: real files, edited the way a
// failing disk, a crash, an editor or a careless script would.
import { appendFile, readdir, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { type RunEvent, type StoredEvent, sessionTranscript } from "@bridle/core";
import { numberedEvent, readAll, sampleRunEvents, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlSessionStore } from "../src/index.js";

let dir: string;
let cleanup: () => Promise<void>;
const sessionFile = () => join(dir, "sessions", "s.jsonl");

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-jsonl-damage-"));
});
afterEach(() => cleanup());

async function withStore<T>(work: (store: JsonlSessionStore) => Promise<T>): Promise<T> {
  const store = await JsonlSessionStore.open({ dir });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

const events = (count: number) => Array.from({ length: count }, (_, i) => numberedEvent(i));

async function seed(batch: readonly RunEvent[]): Promise<void> {
  await withStore(async (store) => {
    await store.createSession({ id: "s" });
    await store.append("s", batch);
  });
}

const load = (fromSeq?: number) => withStore((store) => readAll(store, "s", fromSeq));

/** The file's lines as byte buffers (line 1 is the header), and a way to write them back. */
async function fileLines(): Promise<Buffer[]> {
  const bytes = await readFile(sessionFile());
  const lines: Buffer[] = [];
  let from = 0;
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, from)) {
    lines.push(bytes.subarray(from, i));
    from = i + 1;
  }
  return lines;
}

async function writeLines(lines: readonly Buffer[]): Promise<void> {
  await writeFile(sessionFile(), Buffer.concat(lines.flatMap((line) => [line, Buffer.from("\n")])));
}

function expectNotice(stored: StoredEvent | undefined, seq: number, message: RegExp): void {
  expect(stored?.sessionSeq).toBe(seq);
  expect(stored?.event.type).toBe("store_damage");
  expect(stored?.damage?.kind).toBe("unreadable");
  expect(stored?.damage?.message).toMatch(message);
  expect(stored?.damage?.message).toContain(sessionFile());
}

describe("a damaged line in the middle of a session", () => {
  it("every single flipped byte of an entry is reported, or loads exactly the entry written (generated)", async () => {
    await seed(events(5));
    const original = await fileLines();
    const target = original[3] as Buffer; // entry 2
    const silent: string[] = [];
    let reported = 0;
    for (let offset = 0; offset < target.length; offset++) {
      for (const mask of [0x01, 0x20, 0x80]) {
        const flipped = Buffer.from(target);
        flipped[offset] = (flipped[offset] as number) ^ mask;
        if (flipped[offset] === 10) continue; // a new line break is the split-line case, below
        await writeLines(original.map((line, i) => (i === 3 ? flipped : line)));
        const loaded = await load();
        expect(loaded.map((s) => s.sessionSeq)).toEqual([0, 1, 2, 3, 4]);
        for (const i of [0, 1, 3, 4]) expect(loaded[i]?.event).toEqual(numberedEvent(i));
        const entry = loaded[2];
        if (entry?.damage) {
          expectNotice(entry, 2, /entry 2 is unreadable: line 4 does not parse/);
          reported++;
        } else if (JSON.stringify(entry?.event) !== JSON.stringify(numberedEvent(2))) {
          silent.push(`byte ${offset} ^ ${mask}: ${JSON.stringify(entry?.event).slice(0, 120)}`);
        }
      }
    }
    expect(silent).toEqual([]);
    // Only flips in the checksum's own key name can leave the content intact and unchecked.
    expect(reported).toBeGreaterThan(target.length * 3 - 20);
  });

  it("a line split in two, or two lines run together, is reported at the entries it held", async () => {
    await seed(events(5));
    const original = await fileLines();
    const line = original[3] as Buffer;
    await writeLines([
      ...original.slice(0, 3),
      line.subarray(0, 40),
      line.subarray(40),
      ...original.slice(4),
    ]);
    let loaded = await load();
    expect(loaded.map((s) => s.event.type)).toEqual([
      "model_response",
      "model_response",
      "store_damage",
      "model_response",
      "model_response",
    ]);
    expectNotice(loaded[2], 2, /line 4 does not parse.*line 5 does not parse/);
    await writeLines([
      ...original.slice(0, 3),
      Buffer.concat([line, original[4] as Buffer]),
      ...original.slice(5),
    ]);
    loaded = await load();
    expect(loaded.map((s) => s.sessionSeq)).toEqual([0, 1, 2, 3, 4]);
    expectNotice(loaded[2], 2, /line 4/);
    expectNotice(loaded[3], 3, /line 4/);
  });

  it("removed lines are reported as missing entries", async () => {
    await seed(events(6));
    const original = await fileLines();
    await writeLines([...original.slice(0, 3), ...original.slice(5)]);
    const loaded = await load();
    expect(loaded.map((s) => s.sessionSeq)).toEqual([0, 1, 2, 3, 4, 5]);
    expectNotice(loaded[2], 2, /no line of the file holds it/);
    expectNotice(loaded[3], 3, /no line of the file holds it/);
    expect(loaded[4]?.event).toEqual(numberedEvent(4));
  });

  it("a stray or repeated line is reported on the entry after it, which loads whole", async () => {
    await seed(events(4));
    const original = await fileLines();
    await writeLines([
      ...original.slice(0, 3),
      Buffer.from("<<<<<<< HEAD"),
      original[2] as Buffer,
      ...original.slice(3),
    ]);
    const loaded = await load();
    expect(loaded.map((s) => s.sessionSeq)).toEqual([0, 1, 2, 3]);
    expect(loaded.map((s) => s.event)).toEqual(events(4));
    expect(loaded[2]?.damage).toMatchObject({ kind: "stray_lines" });
    expect(loaded[2]?.damage?.message).toMatch(
      /line 4 does not parse.*line 5 repeats entry 1.*before entry 2/,
    );
    expect(loaded.filter((s) => s.damage)).toHaveLength(1);
  });

  it("reading from a later entry reports only the damage from there on", async () => {
    await seed(events(6));
    const original = await fileLines();
    const broken = (i: number) => Buffer.from(`${(original[i] as Buffer).toString().slice(0, 30)}#`);
    await writeLines(original.map((line, i) => (i === 2 || i === 5 ? broken(i) : line)));
    expect((await load()).filter((s) => s.damage).map((s) => s.sessionSeq)).toEqual([1, 4]);
    const later = await load(3);
    expect(later.map((s) => [s.sessionSeq, s.event.type])).toEqual([
      [3, "model_response"],
      [4, "store_damage"],
      [5, "model_response"],
    ]);
  });

  it("the transcript of a damaged session still resumes: the damage notice is no message", async () => {
    await seed(sampleRunEvents());
    const original = await fileLines();
    await writeLines(
      original.map((line, i) => (i === 4 ? Buffer.from(`${line.toString().slice(0, 25)}`) : line)),
    );
    const damaged: number[] = [];
    const messages = await withStore((store) =>
      sessionTranscript(store, "s", { onDamage: (stored) => damaged.push(stored.sessionSeq) }),
    );
    expect(damaged).toEqual([3]);
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(["user", "assistant", "tool", "system"]).toContain(message.role);
  });
});

describe("the end of the file", () => {
  it("a torn last line (a crash mid-write) is tolerated, not reported, and trimmed by the next writer", async () => {
    await seed(events(3));
    const text = await readFile(sessionFile(), "utf8");
    // Cut inside the last line: it loses its end and its newline, as a write cut short by a crash does.
    await truncate(sessionFile(), Buffer.byteLength(text) - 30);
    const loaded = await load();
    expect(loaded.map((s) => s.sessionSeq)).toEqual([0, 1]);
    expect(loaded.some((s) => s.damage)).toBe(false);
    await withStore(async (store) => {
      expect(await store.append("s", [numberedEvent(2)])).toEqual({ firstSeq: 2, lastSeq: 2 });
    });
    expect((await load()).map((s) => s.event)).toEqual(events(3));
  });

  it("cut at any byte of its last line, a session loads what was whole, reports nothing, and goes on (generated)", async () => {
    await seed(events(3));
    const full = await readFile(sessionFile());
    const lastStart = full.lastIndexOf(10, full.length - 2) + 1;
    for (let cut = lastStart; cut <= full.length; cut++) {
      await writeFile(sessionFile(), full.subarray(0, cut));
      // Only the whole entry, or the whole entry short of its newline, counts as written.
      const whole = cut >= full.length - 1 ? 3 : 2;
      const loaded = await load();
      expect(loaded.some((stored) => stored.damage)).toBe(false);
      expect(loaded.map((stored) => stored.event)).toEqual(events(whole));
      await withStore(async (store) => {
        expect(await store.append("s", [numberedEvent(whole)])).toEqual({ firstSeq: whole, lastSeq: whole });
      });
      expect((await load()).map((stored) => stored.event)).toEqual(events(whole + 1));
    }
  });

  it("a damaged whole last line is reported, kept, and keeps its sequence number", async () => {
    await seed(events(3));
    const original = await fileLines();
    const damaged = Buffer.from(`${(original[3] as Buffer).toString().slice(0, 50)}#`);
    await writeLines([...original.slice(0, 3), damaged]);
    const loaded = await load();
    expect(loaded.map((s) => s.sessionSeq)).toEqual([0, 1, 2]);
    expectNotice(loaded[2], 2, /entry 2 is unreadable: line 4 does not parse/);
    await withStore(async (store) => {
      expect((await store.get("s"))?.lastSeq).toBe(2);
      // The next entry does not take the damaged one's number, and the evidence stays in the file.
      expect(await store.append("s", [numberedEvent(3)])).toEqual({ firstSeq: 3, lastSeq: 3 });
    });
    expect((await readFile(sessionFile())).includes(damaged)).toBe(true);
    const again = await load();
    expect(again.map((s) => [s.sessionSeq, s.event.type])).toEqual([
      [0, "model_response"],
      [1, "model_response"],
      [2, "store_damage"],
      [3, "model_response"],
    ]);
  });

  it("a damaged whole line followed by a torn one: the first is reported, the torn one dropped", async () => {
    await seed(events(2));
    await appendFile(sessionFile(), 'garbage that was an entry\n{"seq":3,"parent":"s:2","ev');
    const loaded = await load();
    expect(loaded.map((s) => [s.sessionSeq, s.event.type])).toEqual([
      [0, "model_response"],
      [1, "model_response"],
      [2, "store_damage"],
    ]);
    await withStore(async (store) => {
      expect(await store.append("s", [numberedEvent(3)])).toEqual({ firstSeq: 3, lastSeq: 3 });
    });
    expect((await load()).map((s) => s.sessionSeq)).toEqual([0, 1, 2, 3]);
  });
});

describe("blobs", () => {
  const big = (tag: string) => `${tag}:${"0123456789abcdef".repeat(2048)}`;

  async function seedBlobs(): Promise<Map<string, string>> {
    await withStore(async (store) => {
      await store.createSession({ id: "s" });
      await store.append("s", sampleRunEvents({ runId: "a", toolCallId: "ca", toolOutput: big("first") }));
      await store.append("s", sampleRunEvents({ runId: "b", toolCallId: "cb", toolOutput: big("second") }));
    });
    const files = new Map<string, string>();
    for (const shard of await readdir(join(dir, "blobs"))) {
      for (const name of await readdir(join(dir, "blobs", shard))) {
        const path = join(dir, "blobs", shard, name);
        files.set((await readFile(path, "utf8")).split(":")[0] as string, path);
      }
    }
    expect([...files.keys()].sort()).toEqual(["first", "second"]);
    return files;
  }

  function outputs(loaded: readonly StoredEvent[]): string[] {
    return loaded.flatMap((s) =>
      s.event.type === "tool_call_completed"
        ? s.event.result.content.flatMap((part) => (part.type === "text" ? [part.text] : []))
        : [],
    );
  }

  it("a deleted blob costs only its entry: a placeholder naming it, reported as blob_missing", async () => {
    const blobs = await seedBlobs();
    await rm(blobs.get("first") as string);
    const loaded = await load();
    const damaged = loaded.filter((s) => s.damage);
    expect(damaged).toHaveLength(1);
    expect(damaged[0]?.damage?.kind).toBe("blob_missing");
    expect(damaged[0]?.event.type).toBe("tool_call_completed");
    const [first, second] = outputs(loaded);
    expect(first).toMatch(/^\[bridle: this output was stored as blob [0-9a-f]{64}, which is missing/);
    expect(second).toBe(big("second"));
    expect(loaded.filter((s) => !s.damage).length).toBe(loaded.length - 1);
  });

  it("an edited blob is not shown: a placeholder, reported as blob_mismatch; the next write repairs it", async () => {
    const blobs = await seedBlobs();
    const path = blobs.get("second") as string;
    await writeFile(path, (await readFile(path, "utf8")).replace("second", "SECOND"));
    let loaded = await load();
    expect(loaded.filter((s) => s.damage).map((s) => s.damage?.kind)).toEqual(["blob_mismatch"]);
    const [first, second] = outputs(loaded);
    expect(first).toBe(big("first"));
    expect(second).toMatch(/no longer matches its hash/);
    expect(second).not.toContain("SECOND");
    // Search reads around it instead of failing.
    expect(await withStore((store) => store.search("notes"))).not.toHaveLength(0);
    // Storing the same output again puts the right content back under its name.
    await withStore((store) =>
      store.append("s", sampleRunEvents({ runId: "c", toolCallId: "cc", toolOutput: big("second") })),
    );
    loaded = await load();
    expect(loaded.some((s) => s.damage)).toBe(false);
    expect(outputs(loaded)).toEqual([big("first"), big("second"), big("second")]);
  });

  it("a blob reference edited into a path never reads outside the blob folder", async () => {
    await seedBlobs();
    const secret = join(dir, "secret.txt");
    await writeFile(secret, "TOP SECRET");
    const lines = await fileLines();
    const index = lines.findIndex((line) => line.includes('"blobs":'));
    const line = (lines[index] as Buffer).toString();
    const hash = /"\$blob":"([0-9a-f]{64})"/.exec(line)?.[1] as string;
    // A line without its checksum (as older writers wrote them) is read unchecked: the weakest case.
    const edited = line
      .replace(/,"sum":"[0-9a-f]{16}"\}$/, "}")
      // blobs/<first two>/<name>: with "../<this folder>/secret.txt" as the name, that is exactly the secret.
      .replaceAll(hash, `../${basename(dir)}/secret.txt`);
    lines[index] = Buffer.from(edited);
    await writeLines(lines);
    const loaded = await load();
    expect(JSON.stringify(loaded)).not.toContain("TOP SECRET");
    expect(loaded.filter((s) => s.damage).map((s) => s.damage?.kind)).toEqual(["blob_missing"]);
  });
});
