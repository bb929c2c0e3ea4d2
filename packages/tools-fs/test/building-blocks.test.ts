import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  decodeText,
  encodeText,
  type FileSnapshot,
  FileTracker,
  sameContent,
  statSnapshot,
  withFileLock,
  writeFileAtomic,
} from "../src/index.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function tempDir(): Promise<string> {
  const temp = await tempWorkspace("bridle-fs-blocks-");
  cleanup = temp.cleanup;
  return temp.dir;
}

const snapshot = (hash: string): FileSnapshot => ({ size: 1, mtimeNs: 1n, ctimeNs: 1n, ino: 1n, hash });

describe("FileTracker", () => {
  it("keeps each run's view apart and forgets the least recently active run first", () => {
    const tracker = new FileTracker({ maxRuns: 2, maxFilesPerRun: 2 });
    tracker.remember("a", "/f", snapshot("1"));
    tracker.remember("b", "/f", snapshot("2"));
    expect(tracker.lastSeen("a", "/f")?.hash).toBe("1");
    tracker.remember("c", "/f", snapshot("3"));
    // "a" was touched after "b", so "b" went.
    expect(tracker.lastSeen("b", "/f")).toBeUndefined();
    expect(tracker.lastSeen("a", "/f")?.hash).toBe("1");
    tracker.remember("a", "/g", snapshot("4"));
    tracker.remember("a", "/h", snapshot("5"));
    expect(tracker.lastSeen("a", "/f")).toBeUndefined();
    expect(() => tracker.assertUnchanged("a", "/h", snapshot("5"), "h")).not.toThrow();
    expect(() => tracker.assertUnchanged("a", "/h", snapshot("6"), "h")).toThrow(/changed on disk/);
    expect(() => tracker.assertUnchanged("a", "/new", undefined, "new")).not.toThrow();
    tracker.forgetRun("a");
    expect(() => tracker.assertUnchanged("a", "/h", snapshot("5"), "h")).toThrow(/has not been read/);
  });

  it("compares content when both sides have a hash, stat fields otherwise", () => {
    const base = { size: 3, mtimeNs: 5n, ctimeNs: 5n, ino: 9n };
    expect(sameContent({ ...base, hash: "x" }, { ...base, mtimeNs: 6n, hash: "x" })).toBe(true);
    expect(sameContent({ ...base, hash: "x" }, { ...base, hash: "y" })).toBe(false);
    expect(sameContent(base, { ...base, hash: "y" })).toBe(true);
    expect(sameContent(base, { ...base, ino: 10n })).toBe(false);
  });
});

describe("writeFileAtomic", () => {
  it("replaces the file whole and leaves no temp file, even when it fails", async () => {
    const dir = await tempDir();
    const target = join(dir, "a.txt");
    await writeFile(target, "old");
    await writeFileAtomic(target, "new");
    expect(await readFile(target, "utf8")).toBe("new");
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(writeFileAtomic(target, "never", { signal: controller.signal })).rejects.toThrow();
    expect(await readFile(target, "utf8")).toBe("new");
    expect(await readdir(dir)).toEqual(["a.txt"]);
    await writeFileAtomic(join(dir, "fresh.sh"), "#!/bin/sh\n", { mode: 0o700 });
    expect((await stat(join(dir, "fresh.sh"))).mode & 0o700).toBe(0o700);
    expect((await statSnapshot(target)).size).toBe(3);
  });
});

describe("withFileLock", () => {
  it("runs tasks on one path one at a time, in order, and goes on after a failure", async () => {
    const order: string[] = [];
    const slow = (name: string, ms: number) => async () => {
      order.push(`${name}+`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(`${name}-`);
      return name;
    };
    const failing = withFileLock("/p", async () => {
      throw new Error("boom");
    });
    const results = await Promise.allSettled([
      withFileLock("/p", slow("a", 30)),
      failing,
      withFileLock("/p", slow("b", 1)),
      withFileLock("/other", slow("c", 1)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(order.indexOf("a-")).toBeLessThan(order.indexOf("b+"));
    expect(order.indexOf("c+")).toBeLessThan(order.indexOf("a-"));
  });
});

describe("decodeText / encodeText", () => {
  it("round-trips UTF-8, BOMs, UTF-16 and stray bytes exactly", () => {
    const samples = [
      Buffer.from("plain\nütf-8 ✓\n"),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("bom\r\n")]),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("utf16 le\n", "utf16le")]),
      Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("utf16 be\n", "utf16le").swap16()]),
      Buffer.from([0x61, 0xff, 0xfe, 0x80, 0x0a]),
      Buffer.alloc(0),
    ];
    for (const bytes of samples) {
      const { text, format } = decodeText(bytes);
      expect(encodeText(text, format)).toEqual(bytes);
    }
    expect(decodeText(samples[1] as Buffer).format).toEqual({
      encoding: "utf8",
      bom: true,
      eol: "crlf",
      finalNewline: true,
    });
    expect(decodeText(samples[3] as Buffer).text).toBe("utf16 be\n");
    expect(decodeText(samples[4] as Buffer).format.encoding).toBe("latin1");
  });
});
