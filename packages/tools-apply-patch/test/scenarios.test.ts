import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { applyPatch } from "../src/index.js";
import { copyInto, snapshotTree, tempDir } from "./helpers.js";

// Each folder is one case: `input/` is the tree before, `patch.txt` the patch, and either `expected/` the
// tree after or `error.txt` lines the failure must contain (the tree then stays exactly `input/`).
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
        if (error === undefined) {
          await applyPatch(patch, { root: dir });
          const expected = await tempDir();
          try {
            await copyInto(join(folder, "expected"), expected.dir);
            expect(await snapshotTree(dir)).toEqual(await snapshotTree(expected.dir));
          } finally {
            await expected.cleanup();
          }
        } else {
          const failure = await applyPatch(patch, { root: dir }).then(
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
