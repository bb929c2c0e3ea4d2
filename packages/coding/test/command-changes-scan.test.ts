import { execFileSync } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CommandWatch } from "../src/index.js";
import { tempRepo } from "./repo.js";

// How a command's listings find the workspace's files: synchronous stats in chunks, git asked only where a
// `.git` lies on the way up, and the rule for "changed" (size, times, inode) kept as it was.
let dataDir: string;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "bridle-command-data-"));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await rm(dataDir, { recursive: true, force: true });
});

async function folder(files: Record<string, string>, git: boolean): Promise<string> {
  const repo = await tempRepo(files, { git });
  cleanups.push(repo.cleanup);
  return repo.dir;
}

const sh = (dir: string, command: string) => execFileSync("bash", ["-c", command], { cwd: dir });
const paths = (changes: Awaited<ReturnType<CommandWatch["after"]>>) =>
  [...(changes?.diffs ?? []), ...(changes?.unshown ?? [])].map((c) => `${c.change} ${c.path}`).sort();

describe("CommandWatch listings", () => {
  it("a command that makes the folder a repository is listed as git lists it from then on", async () => {
    const dir = await folder({ "a.txt": "one\n" }, false);
    const watch = await CommandWatch.open({ dataDir, root: dir });
    const before = await watch.before();
    sh(
      dir,
      "git init -q && echo 'build/' > .gitignore && mkdir build && echo x > build/out.txt && echo two >> a.txt",
    );
    // git's ignore rules now apply: build/ is not listed, and .git never is.
    expect(paths(await watch.after(before))).toEqual(["add .gitignore", "update a.txt"]);

    const next = await watch.before();
    sh(dir, "rm -rf .git && echo y > build/out.txt");
    // Without a repository the folder is walked again, so build/ is seen.
    expect(paths(await watch.after(next))).toEqual(["add build/out.txt"]);
  });

  it("sees a same-size rewrite that sets the old modification time back", async () => {
    for (const git of [true, false]) {
      const dir = await folder({ "src/a.txt": "aaaa\n" }, git);
      const watch = await CommandWatch.open({ dataDir, root: dir });
      sh(dir, "touch -m -d @1700000000 src/a.txt");
      const was = await stat(join(dir, "src/a.txt"));
      const before = await watch.before();
      // Same inode (written in place), same size, the same modification time: only the change time moves.
      sh(dir, "printf 'bbbb\\n' > src/a.txt && touch -m -d @1700000000 src/a.txt");
      const now = await stat(join(dir, "src/a.txt"));
      expect([now.ino, now.size, now.mtimeMs]).toEqual([was.ino, was.size, was.mtimeMs]);
      const changes = await watch.after(before);
      expect(changes?.diffs.map((d) => [d.path, d.hunks[0]?.added])).toEqual([["src/a.txt", ["bbbb"]]]);
    }
  });

  it("sees a change in every chunk of a listing, and lets the process's other work run between chunks", async () => {
    const dir = await folder({}, false);
    sh(
      dir,
      "for d in 0 1 2 3 4; do mkdir d$d; done; for i in $(seq 0 2499); do echo $i > d$((i % 5))/f$i.txt; done",
    );
    const watch = await CommandWatch.open({ dataDir, root: dir });
    await watch.before();

    let turns = 0;
    let running = true;
    const tick = () => {
      if (!running) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const before = await watch.before();
    running = false;
    expect(turns).toBeGreaterThan(1);

    sh(dir, "for i in 0 999 1000 1999 2499; do echo changed > d$((i % 5))/f$i.txt; done");
    expect((await watch.after(before))?.count).toBe(5);
  });
});
