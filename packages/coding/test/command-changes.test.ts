import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COMMAND_CHANGE_LIMITS, CommandWatch } from "../src/index.js";
import { tempRepo } from "./repo.js";

// What a command changed, found by listing a real repository before and after real shell commands.
let dir: string;
let dataDir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempRepo({ "src/a.js": "one\ntwo\nthree\n", "run.sh": "echo hi\n" }));
  dataDir = await mkdtemp(join(tmpdir(), "bridle-command-data-"));
});
afterEach(async () => {
  await cleanup();
  await rm(dataDir, { recursive: true, force: true });
});

const sh = (command: string) => execFileSync("bash", ["-c", command], { cwd: dir });

describe("CommandWatch", () => {
  it("draws a text change, an added and a removed file, and says nothing of a command that changed nothing", async () => {
    const watch = await CommandWatch.open({ dataDir, root: dir });
    const quiet = await watch.before();
    sh("cat src/a.js > /dev/null");
    expect(await watch.after(quiet)).toBeUndefined();

    const before = await watch.before();
    sh("sed -i 's/two/TWO/' src/a.js && echo new > b.txt && rm run.sh");
    const changes = await watch.after(before);
    expect(changes).toEqual({
      count: 3,
      diffs: [
        {
          path: "b.txt",
          change: "add",
          added: 1,
          removed: 0,
          hunks: [{ oldStart: 1, newStart: 1, removed: [], added: ["new"] }],
          omittedLines: 0,
        },
        {
          path: "run.sh",
          change: "delete",
          added: 0,
          removed: 1,
          hunks: [{ oldStart: 1, newStart: 1, removed: ["echo hi"], added: [] }],
          omittedLines: 0,
        },
        {
          path: "src/a.js",
          change: "update",
          added: 1,
          removed: 1,
          hunks: [{ oldStart: 2, newStart: 2, removed: ["two"], added: ["TWO"] }],
          omittedLines: 0,
        },
      ],
      unshown: [],
    });
  });

  it("names binary files, secrets, links and mode changes without their lines", async () => {
    const key = `AKIA${"QZ7X2M4K9TBW3VNR"}`;
    await writeFile(join(dir, "key.src"), `aws = ${key}\n`);
    const watch = await CommandWatch.open({ dataDir, root: dir });
    const before = await watch.before();
    sh("printf 'P\\000NG' > logo.png && echo 'TOKEN=abc' > .env && cp key.src conf.txt && chmod +x run.sh");
    await symlink("src/a.js", join(dir, "link.js"));
    const changes = await watch.after(before);
    expect(changes?.diffs).toEqual([]);
    expect(changes?.unshown).toEqual([
      { path: ".env", change: "add", reason: "secret" },
      { path: "conf.txt", change: "add", reason: "secret" },
      { path: "link.js", change: "add", reason: "link" },
      { path: "logo.png", change: "add", reason: "binary" },
      { path: "run.sh", change: "update", reason: "mode" },
    ]);
    expect(JSON.stringify(changes)).not.toContain(key);
    expect(JSON.stringify(changes)).not.toContain("abc");
  });

  it("a command that rewrites 10,000 files is counted, its diffs and names bounded", async () => {
    await mkdir(join(dir, "gen"));
    sh("for i in $(seq 1 10000); do echo $i > gen/f$i.txt; done; echo k > gen/.env");
    const watch = await CommandWatch.open({ dataDir, root: dir });
    const before = await watch.before();
    sh("for f in gen/*.txt gen/.env; do echo changed >> $f; done");
    const changes = await watch.after(before);
    expect(changes?.count).toBe(10_001);
    expect(changes?.diffs).toHaveLength(COMMAND_CHANGE_LIMITS.maxDiffFiles);
    // Past the drawn files a file is still named when its name says why (a secret), never read.
    expect(changes?.unshown).toEqual([{ path: "gen/.env", change: "update", reason: "secret" }]);
    const lines = (changes?.diffs ?? []).flatMap((d) => d.hunks.flatMap((h) => [...h.added, ...h.removed]));
    expect(lines.length).toBeLessThanOrEqual(COMMAND_CHANGE_LIMITS.maxDiffLines);
  }, 600_000);

  it("a file too large is named, not read into a diff", async () => {
    const big = "x".repeat(COMMAND_CHANGE_LIMITS.maxTextBytes + 1);
    await writeFile(join(dir, "big.txt"), big);
    await chmod(join(dir, "big.txt"), 0o644);
    const watch = await CommandWatch.open({ dataDir, root: dir });
    const before = await watch.before();
    sh("echo more >> big.txt");
    expect((await watch.after(before))?.unshown).toEqual([
      { path: "big.txt", change: "update", reason: "too large" },
    ]);
  });
});
