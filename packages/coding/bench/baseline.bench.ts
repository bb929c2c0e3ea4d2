import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, test } from "vitest";
import { RepoState } from "../src/repo-state.js";

// What the overlay adds to a run's start and to each write: the baseline, then a rescan, side by side
// with the bare `git status` both are built on. A repository of 2,000 committed files, 50 of them edited
// by the user and 20 more by the agent.
const dir = mkdtempSync(join(tmpdir(), "bridle-coding-bench-"));
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.com", ...args], {
    cwd: dir,
    stdio: "ignore",
  });
let state: RepoState;

beforeAll(async () => {
  for (let i = 0; i < 2_000; i++) {
    await mkdir(join(dir, `d${i % 40}`), { recursive: true });
    await writeFile(join(dir, `d${i % 40}`, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(40));
  }
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
  for (let i = 0; i < 50; i++) await writeFile(join(dir, `d${i % 40}`, `f${i}.ts`), "user edit\n");
  state = await RepoState.capture(dir);
  for (let i = 100; i < 120; i++) await writeFile(join(dir, `d${i % 40}`, `f${i}.ts`), "agent edit\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("baseline and rescan, 2,000 files", async ({ bench }) => {
  await bench("git status --porcelain=v2 (bare)", () => {
    execFileSync("git", ["status", "--porcelain=v2", "-z", "--untracked-files=all"], { cwd: dir });
  }).run();
  await bench("RepoState.capture (baseline)", async () => {
    await RepoState.capture(dir);
  }).run();
  await bench("changes() (rescan after a write)", async () => {
    await state.changes();
  }).run();
});
