import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, test } from "vitest";
import { CommandWatch } from "../src/index.js";

// What each command that runs through bash, skill_run or run_check costs for its diffs: one `before` and
// one `after` of CommandWatch, on workspaces of 100, 1,000 and 10,000 files (folders of 100 files each),
// when the command changed nothing and when it rewrote one file. The scanner's caches are warm, as from
// the second command of a session on. Wall time is vitest's; CPU time (user + system of this process, so
// not git's own) is printed per pair after the run.
const SIZES = [100, 1_000, 10_000] as const;
const roots: string[] = [];
// Enough pairs for a median on a loaded machine without the 10,000-file cases taking minutes.
const RUNS = { time: 2_000, iterations: 12 };
const cpu = new Map<string, { micros: number; runs: number }>();

function workspace(files: number, git: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), "bridle-watch-bench-"));
  roots.push(dir);
  for (let i = 0; i < files; i++) {
    const folder = join(dir, `src/d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
  }
  if (git) {
    const run = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.com", ...args], {
        cwd: dir,
        stdio: "ignore",
      });
    run("init", "-q", "-b", "main");
    run("add", "-A");
    run("commit", "-q", "-m", "start");
  }
  return dir;
}

async function timedPair(name: string, watch: CommandWatch, command: () => void): Promise<void> {
  const start = process.cpuUsage();
  const before = await watch.before();
  command();
  await watch.after(before);
  const used = process.cpuUsage(start);
  const seen = cpu.get(name) ?? { micros: 0, runs: 0 };
  cpu.set(name, { micros: seen.micros + used.user + used.system, runs: seen.runs + 1 });
}

const cases: { name: string; files: number; git: boolean; dir?: string; watch?: CommandWatch }[] = [
  ...SIZES.map((files) => ({ name: `git repo, ${files} files`, files, git: true })),
  { name: "plain folder, 10000 files", files: 10_000, git: false },
];

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "bridle-watch-bench-data-"));
  roots.push(dataDir);
  for (const item of cases) item.dir = workspace(item.files, item.git);
  // Workspaces as users' are, not brand new: a listing is kept only once its folders, ignore files and
  // index have been quiet for 2 s (ListingSignature), which the nothing-changed and in-place cases show.
  await sleep(2_100);
  for (const item of cases) {
    item.watch = await CommandWatch.open({ dataDir, root: item.dir as string });
    // Warm: the first listing of a session hashes and keeps every file.
    await item.watch.after(await item.watch.before());
  }
}, 600_000);

afterAll(() => {
  const rows = [...cpu].map(([name, { micros, runs }]) => `${name}: ${(micros / runs / 1000).toFixed(2)} ms`);
  console.log(`CPU per before+after pair (this process):\n  ${rows.join("\n  ")}`);
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

test("CommandWatch before+after per command", async ({ bench }) => {
  let n = 0;
  for (const item of cases) {
    const watch = item.watch as CommandWatch;
    const dir = item.dir as string;
    await bench(`${item.name}, nothing changed`, () =>
      timedPair(`${item.name}, nothing changed`, watch, () => {}),
    ).run(RUNS);
    await bench(`${item.name}, one file changed`, () =>
      timedPair(`${item.name}, one file changed`, watch, () => {
        writeFileSync(join(dir, "src/d0/f0.ts"), `export const v0 = ${++n};\n`);
      }),
    ).run(RUNS);
  }
}, 1_200_000);
