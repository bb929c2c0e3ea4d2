import { spawnSync } from "node:child_process";
import { mkdir, readdir, readFile, realpath, rmdir, unlink, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { ToolFailure, Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, describe, expect, it } from "vitest";
import { replaceFile } from "../src/atomic-write.js";
import { holdDir } from "../src/descriptor.js";
import { lockAcross, withFileLock } from "../src/file-lock.js";
import {
  decodeText,
  encodeText,
  type FileSnapshot,
  FileTracker,
  hashBytes,
  sameContent,
  statSnapshot,
  updateFile,
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

describe("updateFile", () => {
  it("replaces the file whole and leaves no temp or lock file, even when it fails", async () => {
    const dir = await tempDir();
    const workspace = new Workspace(dir);
    const tracker = new FileTracker();
    const target = join(dir, "a.txt");
    await writeFile(target, "old");
    const options = { create: false, maxBytes: 1_000, requireBytes: true, tracker, runId: "r" };
    const seen = await updateFile(workspace, "a.txt", options, ({ current }) => ({
      bytes: Buffer.from("new"),
      value: current?.bytes?.toString(),
    }));
    expect(seen).toBe("old");
    expect(await readFile(target, "utf8")).toBe("new");
    // What was written is what the run now knows of the file.
    expect(tracker.lastSeen("r", await realpath(target))?.hash).toBe(hashBytes(Buffer.from("new")));
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(
      updateFile(workspace, "a.txt", { ...options, signal: controller.signal }, () => ({
        bytes: Buffer.from("never"),
        value: 0,
      })),
    ).rejects.toThrow();
    await expect(
      updateFile(workspace, "a.txt", options, () => {
        throw new Error("planning failed");
      }),
    ).rejects.toThrow("planning failed");
    expect(await readFile(target, "utf8")).toBe("new");
    expect(await readdir(dir)).toEqual(["a.txt"]);
    await updateFile(workspace, "deep/er/fresh.sh", { ...options, create: true }, () => ({
      bytes: Buffer.from("#!/bin/sh\n"),
      value: undefined,
    }));
    expect(await readFile(join(dir, "deep/er/fresh.sh"), "utf8")).toBe("#!/bin/sh\n");
    expect((await statSnapshot(target)).size).toBe(3);
  });

  it("reports a Conflict, writing nothing, when the file changed between the read and the commit", async () => {
    const dir = await tempDir();
    const workspace = new Workspace(dir);
    const target = join(dir, "a.txt");
    await writeFile(target, "v1");
    const options = {
      create: true,
      maxBytes: 1_000,
      requireBytes: true,
      tracker: new FileTracker(),
      runId: "r",
    };
    const failure = await updateFile(workspace, "a.txt", options, async () => {
      // Another writer (an editor, a shell) that takes no lock, same size and within the same clock tick.
      await writeFile(target, "v2");
      return { bytes: Buffer.from("mine"), value: 0 };
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ToolFailure);
    expect(failure).toMatchObject({ kind: "Conflict" });
    expect((failure as Error).message).toMatch(/changed by someone else.*Read it again/);
    expect(await readFile(target, "utf8")).toBe("v2");
    const created = await updateFile(workspace, "b.txt", options, async () => {
      await writeFile(join(dir, "b.txt"), "theirs");
      return { bytes: Buffer.from("mine"), value: 0 };
    }).catch((error: unknown) => error);
    expect(created).toMatchObject({ kind: "Conflict" });
    expect(await readFile(join(dir, "b.txt"), "utf8")).toBe("theirs");
    expect((await readdir(dir)).sort()).toEqual(["a.txt", "b.txt"]);
  });
});

describe("the cross-process lock", () => {
  const options = {
    create: false,
    maxBytes: 1_000,
    requireBytes: true,
    tracker: new FileTracker(),
    runId: "r",
  };

  it("takes over a lock left by a process that is gone, or by one that held it past 30 s", async () => {
    const dir = await tempDir();
    const workspace = new Workspace(dir);
    await writeFile(join(dir, "a.txt"), "a");
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
    const deadPid = Number(gone.stdout.toString());
    const host = hostname();
    for (const content of [
      `${deadPid} ${host} ${Date.now()} x`,
      `${process.pid} ${host} ${Date.now() - 31_000} x`,
      // A holder that died between creating the file and filling it, long ago.
      "",
    ]) {
      const lock = join(dir, ".a.txt.bridle-lock");
      await writeFile(lock, content);
      if (content === "") await utimes(lock, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      await updateFile(workspace, "a.txt", options, () => ({ bytes: Buffer.from(content), value: 0 }));
      expect(await readFile(join(dir, "a.txt"), "utf8")).toBe(content);
      expect(await readdir(dir)).toEqual(["a.txt"]);
    }
  });

  it("waits for a live holder and goes on once it lets go", async () => {
    const dir = await tempDir();
    const workspace = new Workspace(dir);
    await writeFile(join(dir, "a.txt"), "a");
    const lock = join(dir, ".a.txt.bridle-lock");
    await writeFile(lock, `${process.pid} ${hostname()} ${Date.now()} other`);
    let done = false;
    const waiting = updateFile(workspace, "a.txt", options, () => ({
      bytes: Buffer.from("b"),
      value: 0,
    })).then(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(done).toBe(false);
    expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("a");
    await unlink(lock);
    await waiting;
    expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("b");
  });
});

describe("a held folder removed by another process", () => {
  it("is a Conflict to retry, whether it goes before the lock or before the new file is written", async () => {
    const dir = await tempDir();
    const workspace = new Workspace(dir);
    const folder = join(dir, "d");
    await mkdir(folder);
    const real = await realpath(folder);
    // The folder is held through its descriptor, then removed (as a swap by another process does).
    const beforeLock = await holdDir(workspace, real, "d");
    await rmdir(folder);
    await expect(lockAcross(beforeLock, "new.txt", "d/new.txt")).rejects.toMatchObject({
      kind: "Conflict",
      message: expect.stringMatching(/changed while it was being opened/),
    });
    await beforeLock.handle.close();
    await mkdir(folder);
    const beforeWrite = await holdDir(workspace, await realpath(folder), "d");
    await rmdir(folder);
    const written = replaceFile(workspace, beforeWrite, "new.txt", Buffer.from("x"), {
      shown: "d/new.txt",
      expected: undefined,
    });
    await expect(written).rejects.toBeInstanceOf(ToolFailure);
    await expect(written).rejects.toMatchObject({ kind: "Conflict" });
    await beforeWrite.handle.close();
    expect(await readdir(dir)).toEqual([]);
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
