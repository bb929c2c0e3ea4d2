import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Workspace } from "@bridle/core";
import { FileTracker, snapshotOf } from "@bridle/tools-fs";
import { describe, expect, it } from "vitest";
import { applyPatch, DEFAULT_MAX_FILE_BYTES, runPatch } from "../src/engine.js";
import { copyInto, snapshotTree, tempDir } from "./helpers.js";

/**
 * The patch applied as the tool applies it in a run that has read `read` (paths under `dir`), or by the
 * bare engine (which knows of no run, so reads nothing) when the case names no read.
 */
async function runner(dir: string, read: readonly string[]) {
  if (read.length === 0) return (patch: string) => applyPatch(patch, { root: dir });
  const workspace = new Workspace({ roots: [dir] });
  const tracker = new FileTracker();
  for (const path of read) {
    const real = await realpath(join(dir, path));
    tracker.remember("run", real, snapshotOf(await stat(real, { bigint: true }), await readFile(real)));
  }
  return (patch: string) =>
    runPatch(patch, {
      workspace,
      maxFileBytes: DEFAULT_MAX_FILE_BYTES,
      readGuard: { tracker, runId: "run" },
    });
}

// Each folder is one case: `input/` is the tree before, `patch.txt` the patch, and either `expected/` the
// tree after or `error.txt` lines the failure must contain (the tree then stays exactly `input/`). An
// optional `read.txt` lists the files the run read before the patch (one path a line); without it the
// run has read nothing, as with the bare engine.
const scenarios = fileURLToPath(new URL("./scenarios/", import.meta.url));

describe("scenarios", async () => {
  const names = (await readdir(scenarios)).sort();
  it("has cases", () => expect(names.length).toBeGreaterThan(10));
  for (const name of names) {
    it(name, async () => {
      const { dir, cleanup } = await tempDir();
      try {
        const folder = join(scenarios, name);
        await copyInto(join(folder, "input"), dir);
        const before = await snapshotTree(dir);
        const patch = await readFile(join(folder, "patch.txt"), "utf8");
        const error = await readFile(join(folder, "error.txt"), "utf8").catch(() => undefined);
        const read = await readFile(join(folder, "read.txt"), "utf8").catch(() => "");
        const apply = await runner(dir, read.split("\n").filter(Boolean));
        if (error === undefined) {
          await apply(patch);
          const expected = await tempDir();
          try {
            await copyInto(join(folder, "expected"), expected.dir);
            expect(await snapshotTree(dir)).toEqual(await snapshotTree(expected.dir));
          } finally {
            await expected.cleanup();
          }
        } else {
          const failure = await apply(patch).then(
            () => new Error("the patch applied"),
            (thrown: unknown) => thrown as Error,
          );
          for (const line of error.split("\n").filter(Boolean)) expect(failure.message).toContain(line);
          expect(await snapshotTree(dir)).toEqual(before);
        }
      } finally {
        await cleanup();
      }
    });
  }
});
