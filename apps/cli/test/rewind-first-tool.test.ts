import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openCheckpoints, TurnCheckpoints } from "../src/run/rewind.js";
import { holdToolsUntil, toolsMayRun } from "../src/run/tool-gate.js";

// A turn's checkpoint (the listing of the workspace that rewind restores) is taken while its first model
// request is in flight, so `before` returns before it is done: the turn's first tool call waits for it
// (the hook every composed agent runs, tool-gate.ts). Here a "tool" overwrites a file the moment it may.

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-rewind-first-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, "data"), { recursive: true });
  for (let i = 0; i < 200; i++) await writeFile(join(repo, "data", `f${i}.txt`), `${i}\n`);
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo, stdio: "ignore" });
  // Uncommitted, so only the checkpoint holds what it was.
  await writeFile(join(repo, "zz-draft.txt"), "my unfinished draft\n");
});
afterEach(async () => {
  await cleanup();
});

describe("the first tool call of a turn", () => {
  it("waits for the turn's checkpoint: a rewind restores what it overwrote at once", async () => {
    const store = await JsonlSessionStore.open({ dir: join(dir, "sessions") });
    const said: string[] = [];
    try {
      const session = await store.createSession({ title: "t" });
      const place = { cwd: repo, dataDir: join(dir, "data") };
      const rewind = await TurnCheckpoints.open(place, store, session.id, (text) => said.push(text));
      await rewind.before("overwrite", -1);
      await toolsMayRun(repo);
      // Synchronously, before any listing still under way could read it.
      writeFileSync(join(repo, "zz-draft.txt"), "overwritten\n");
      await rewind.after();
      expect(said).toEqual([]);
      const checkpoints = await openCheckpoints(place, session.id);
      const plan = await checkpoints.rewind(1);
      expect(plan.restore.map((entry) => entry.path)).toContain("zz-draft.txt");
      expect(readFileSync(join(repo, "zz-draft.txt"), "utf8")).toBe("my unfinished draft\n");
    } finally {
      await store.close();
    }
  });

  it("holds tools in its own workspace only", async () => {
    let release = () => {};
    const work = new Promise<void>((resolve) => {
      release = resolve;
    });
    holdToolsUntil(repo, work);
    let ranHere = false;
    const here = toolsMayRun(join(repo, ".")).then(() => {
      ranHere = true;
    });
    // Another workspace is not held: this resolves while the listing here is still under way.
    await toolsMayRun(dir);
    expect(ranHere).toBe(false);
    release();
    await here;
    expect(ranHere).toBe(true);
  });
});
