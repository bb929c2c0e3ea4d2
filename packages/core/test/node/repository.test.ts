import { execFileSync } from "node:child_process";
import { mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { discoverRepository, foldersFromRepositoryTop, isGitDirectory } from "../../src/node/index.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-repo-"));
  dir = await realpath(dir);
});
afterEach(() => cleanup());

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-C", cwd, ...args], { stdio: "ignore" });

it("finds the repository as git does: an empty .git folder is passed over, a worktree's gitfile followed", async () => {
  const repo = join(dir, "repo");
  await mkdir(join(repo, "pkg", ".git"), { recursive: true });
  git(repo, "init", "-q");
  git(repo, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x");
  const found = discoverRepository(join(repo, "pkg"));
  expect(found).toEqual({ gitDir: join(repo, ".git"), commonDir: join(repo, ".git"), top: repo });
  git(repo, "worktree", "add", "-q", join(dir, "wt"));
  const worktree = discoverRepository(join(dir, "wt"));
  expect(worktree?.top).toBe(join(dir, "wt"));
  expect(worktree?.commonDir).toBe(join(repo, ".git"));
  expect(worktree?.gitDir).toBe(join(repo, ".git", "worktrees", "wt"));
  expect(isGitDirectory(join(repo, ".git"))).toBe(true);
  expect(isGitDirectory(join(repo, "pkg", ".git"))).toBe(false);
  expect(discoverRepository(dir)).toBeUndefined();
});

it("folders from the repository top: any .git entry marks the top; none gives just the folder", async () => {
  const repo = join(dir, "repo");
  await mkdir(join(repo, ".git"), { recursive: true });
  await mkdir(join(repo, "a", "b"), { recursive: true });
  expect(await foldersFromRepositoryTop(join(repo, "a", "b"))).toEqual([
    repo,
    join(repo, "a"),
    join(repo, "a", "b"),
  ]);
  await writeFile(join(repo, "a", ".git"), "gitdir: ../elsewhere\n");
  expect(await foldersFromRepositoryTop(join(repo, "a", "b"))).toEqual([
    join(repo, "a"),
    join(repo, "a", "b"),
  ]);
  await mkdir(join(dir, "plain", "x"), { recursive: true });
  expect(await foldersFromRepositoryTop(join(dir, "plain", "x"))).toEqual([join(dir, "plain", "x")]);
});
