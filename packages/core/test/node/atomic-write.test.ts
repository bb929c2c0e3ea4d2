import { spawn } from "node:child_process";
import { lstat, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { writeFileAtomic, writeFileAtomicSync } from "../../src/node/index.js";
import { bundleChild } from "../helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-atomic-"));
});
afterEach(() => cleanup());

const SIZE = 256 * 1024;

it("a reader and a killed writer see the old content or the new one, never a mix, and no stray file but temps", async () => {
  const script = join(dir, "rewrite-loop.mjs");
  await bundleChild(fileURLToPath(new URL("./fixtures/rewrite-loop.ts", import.meta.url)), script);
  const target = join(dir, "data.txt");
  await writeFile(target, "a".repeat(SIZE));
  const kinds = new Set<string>();
  for (let kill = 0; kill < 5; kill++) {
    const child = spawn(process.execPath, [script, target, String(SIZE)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    // Read while it writes: every read is one whole content. Each round reads until it has seen the
    // writer's other content (bounded, so a writer that never writes fails the check below).
    const seen = new Set<string>();
    for (let read = 0; read < 5_000 && seen.size < 2; read++) {
      const text = await readFile(target, "utf8");
      expect(text.length).toBe(SIZE);
      expect(text === "a".repeat(SIZE) || text === "b".repeat(SIZE)).toBe(true);
      seen.add(text[0] as string);
      kinds.add(text[0] as string);
    }
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("close", resolve));
    const after = await readFile(target, "utf8");
    expect(after === "a".repeat(SIZE) || after === "b".repeat(SIZE)).toBe(true);
  }
  // The writer did replace the file while it was read (otherwise this test proved nothing).
  expect(kinds.size).toBe(2);
  const left = (await readdir(dir)).filter((name) => name !== "data.txt" && name !== "rewrite-loop.mjs");
  for (const name of left) expect(name).toMatch(/^\.data\.txt\.[0-9a-f]{12}\.bridle-tmp$/);
});

it("replaces a symlink at the target instead of writing through it, with the mode asked for", async () => {
  const outside = join(dir, "outside.txt");
  await writeFile(outside, "keep");
  const target = join(dir, "link.txt");
  await symlink(outside, target);
  expect(await writeFileAtomic(target, "new", { mode: 0o600 })).toBe(true);
  expect(await readFile(outside, "utf8")).toBe("keep");
  const stats = await lstat(target);
  expect(stats.isFile()).toBe(true);
  expect(stats.mode & 0o777).toBe(0o600);
  expect(await readdir(dir)).toEqual(["link.txt", "outside.txt"]);
});

it("ifAbsent creates a missing file and leaves an existing one untouched, async and sync", async () => {
  const target = join(dir, "once.txt");
  expect(await writeFileAtomic(target, "first", { ifAbsent: true })).toBe(true);
  expect(await writeFileAtomic(target, "second", { ifAbsent: true })).toBe(false);
  expect(writeFileAtomicSync(target, "third", { ifAbsent: true })).toBe(false);
  expect(await readFile(target, "utf8")).toBe("first");
  expect(writeFileAtomicSync(target, "fourth")).toBe(true);
  expect(await readFile(target, "utf8")).toBe("fourth");
  expect(await readdir(dir)).toEqual(["once.txt"]);
});

it("racing creators with ifAbsent: exactly one wins and the file holds its bytes whole", async () => {
  const target = join(dir, "race.txt");
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, index) =>
      writeFileAtomic(target, String(index).repeat(10_000), { ifAbsent: true }),
    ),
  );
  expect(results.filter(Boolean)).toHaveLength(1);
  const winner = results.indexOf(true);
  expect(await readFile(target, "utf8")).toBe(String(winner).repeat(10_000));
  expect(await readdir(dir)).toEqual(["race.txt"]);
});

it("a folder that does not exist fails with ENOENT and leaves nothing behind", async () => {
  await expect(writeFileAtomic(join(dir, "missing", "x.txt"), "x")).rejects.toMatchObject({ code: "ENOENT" });
  expect(() => writeFileAtomicSync(join(dir, "missing", "x.txt"), "x")).toThrow(/ENOENT/);
  expect(await readdir(dir)).toEqual([]);
  await expect(stat(join(dir, "missing"))).rejects.toMatchObject({ code: "ENOENT" });
});
