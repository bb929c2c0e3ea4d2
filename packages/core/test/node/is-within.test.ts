import { mkdir, realpath, symlink } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { isWithin as coreIsWithin } from "../../src/index.js";
import { isWithin, isWithinAny, isWithinResolved, realPathOf } from "../../src/node/index.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-within-"));
});
afterEach(() => cleanup());

it("lexically: the place itself and what is under it, not a sibling sharing its prefix nor its parent", () => {
  expect(isWithin("/work", "/work")).toBe(true);
  expect(isWithin("/work", "/work/a/b")).toBe(true);
  expect(isWithin("/work", "/work/..data")).toBe(true);
  expect(isWithin("/work", "/work-evil/a")).toBe(false);
  expect(isWithin("/work", "/")).toBe(false);
  expect(isWithin("/work/a", "/work")).toBe(false);
  expect(isWithin("/", "/anything")).toBe(true);
  expect(isWithinAny(["/a", "/b"], "/b/c")).toBe(true);
  expect(isWithinAny(["/a", "/b"], "/c")).toBe(false);
  expect(isWithinAny([], "/a")).toBe(false);
  // Core's main entry has the same function, not a second copy.
  expect(coreIsWithin).toBe(isWithin);
});

it("resolved: a root reached through a symlink holds its files, and a link inside leading out does not", async () => {
  const real = join(dir, "real");
  const outside = join(dir, "outside");
  await mkdir(join(real, "src"), { recursive: true });
  await mkdir(outside);
  const linkedRoot = join(dir, "linked");
  await symlink(real, linkedRoot);
  await symlink(outside, join(real, "escape"));
  expect(await isWithinResolved(linkedRoot, join(real, "src", "a.ts"))).toBe(true);
  expect(await isWithinResolved(real, join(linkedRoot, "src"))).toBe(true);
  // Not there yet: judged by its real parent.
  expect(await isWithinResolved(linkedRoot, join(linkedRoot, "new", "deeper", "file"))).toBe(true);
  expect(await isWithinResolved(linkedRoot, join(linkedRoot, "escape", "file"))).toBe(false);
  expect(await isWithinResolved(linkedRoot, join(dir, "real-sibling"))).toBe(false);
  // Lexically the escape looks inside; only the resolved test sees through it.
  expect(isWithin(linkedRoot, join(linkedRoot, "escape", "file"))).toBe(true);
});

it("resolved: a dangling link or a loop is not provably inside, so it is not", async () => {
  await symlink(join(dir, "nowhere"), join(dir, "dangling"));
  await symlink(join(dir, "loop-b"), join(dir, "loop-a"));
  await symlink(join(dir, "loop-a"), join(dir, "loop-b"));
  expect(await isWithinResolved(dir, join(dir, "dangling"))).toBe(false);
  expect(await isWithinResolved(dir, join(dir, "loop-a", "x"))).toBe(false);
  expect(await realPathOf(join(dir, "dangling"))).toBeUndefined();
  expect(await realPathOf(join(dir, "missing", "deeper"))).toBe(
    join(await realpath(dir), "missing", "deeper"),
  );
});
