import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { FoundRepository } from "@bridle/core/node";
import type { ClassRule } from "./examples.js";

/**
 * Whether a repository's history (every commit reachable from any ref or reflog entry, and the index)
 * holds a path the secret rule names: a `.env` deleted from the index stays readable to `git log -p`,
 * `git show REV:.env` or `git cat-file`. One bounded `git rev-list --objects` per repository, run only
 * after the repository's config was found to run nothing, and cached until its refs change.
 */

/** hist/ is a repository whose history holds a `.env` that is in neither the index nor the work tree. */
export const HISTORY_RULE: ClassRule = {
  why: "where history holds a secret-named path, git commands that print history's contents ask",
  examples: [
    ["git -C hist log --oneline", "allow"],
    ["git -C hist log --name-only --format=%H", "allow"],
    ["git -C hist log --stat --raw", "allow"],
    ["git -C hist status", "allow"],
    ["git -C hist log -p", "block"],
    ["cd hist/sub && git log -p", "block"],
    ["git -C hist log --patch-with-stat -1", "block"],
    ["git -C hist log -S KEY --oneline", "block"],
    ["git -C hist log -L 1,1:.env", "block"],
    ["git -C hist show HEAD~1", "block"],
    ["git -C hist show HEAD~1:.env", "block"],
    ["git -C hist diff HEAD~1", "block"],
    ["git -C hist cat-file --batch-all-objects --batch", "block"],
    ["git -C hist grep KEY HEAD~1", "block"],
    ["git -C hist blame HEAD~1 -- a.txt", "block"],
    ["git -C hist archive HEAD~1", "block"],
    ["git -C hist stash list -p", "block"],
    ["git log -p -1", "allow"],
    ["git cat-file -p HEAD:src/b.ts", "allow"],
    ["git cat-file -t HEAD", "allow"],
    ["git cat-file -p HEAD", "block"],
    ["git cat-file --batch-all-objects --batch-check", "allow"],
    ["git cat-file --batch-check --batch", "block"],
    ["git show HEAD", "allow"],
    ["git -C hist show HEAD --stat", "allow"],
    ["git -C hist show HEAD~1 --name-only --oneline", "allow"],
    ["git -C hist show HEAD~1:.env --stat", "block"],
    ["git -C hist show HEAD --stat --format=%N", "block"],
    ["git -C hist show master --stat", "block"],
  ],
};

// Bounds: a history larger than this, or slower, counts as holding a secret (the readers ask).
const HISTORY_TIMEOUT_MS = 3_000;
const HISTORY_MAX_BYTES = 64 * 1024 * 1024;

export type HistorySecret = { readonly path: string } | { readonly unknown: string } | undefined;

const checked = new Map<string, { stamp: string; answer: HistorySecret }>();

/** A secret-named path in the history of `repository`, the reason it could not be checked, or undefined. */
export function historySecret(
  repository: FoundRepository,
  isSecret: (path: string) => boolean,
): HistorySecret {
  const stamp = refsStamp(repository);
  const known = checked.get(repository.commonDir);
  if (known?.stamp === stamp) return known.answer;
  const answer = scanHistory(repository, isSecret);
  if (checked.size > 64) checked.clear();
  checked.set(repository.commonDir, { stamp, answer });
  return answer;
}

function scanHistory(repository: FoundRepository, isSecret: (path: string) => boolean): HistorySecret {
  let listing: string;
  try {
    listing = execFileSync(
      "git",
      [
        `--git-dir=${repository.gitDir}`,
        "--no-replace-objects",
        "rev-list",
        "--objects",
        "--all",
        "--reflog",
        "--indexed-objects",
      ],
      {
        encoding: "utf8",
        timeout: HISTORY_TIMEOUT_MS,
        maxBuffer: HISTORY_MAX_BYTES,
        stdio: ["ignore", "pipe", "ignore"],
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: process.env.HOME ?? "/",
          GIT_CONFIG_NOSYSTEM: "1",
          GIT_CONFIG_GLOBAL: "/dev/null",
          GIT_OPTIONAL_LOCKS: "0",
          GIT_TERMINAL_PROMPT: "0",
        },
      },
    );
  } catch (error) {
    return { unknown: `its history could not be listed (${(error as Error).message.slice(0, 80)})` };
  }
  for (const line of listing.split("\n")) {
    const space = line.indexOf(" ");
    if (space === -1) continue;
    const path = line.slice(space + 1);
    // A folder the rule names (.ssh) counts through any file below it.
    if (isSecret(join(repository.top, path)) || isSecret(join(repository.top, path, "x"))) return { path };
  }
  return undefined;
}

// What changes when a commit, a ref, a reflog entry or the index changes: git writes HEAD, the index and
// each ref by renaming a lock file into its folder, which changes the folder's time.
function refsStamp({ gitDir, commonDir }: FoundRepository): string {
  return [
    gitDir,
    join(gitDir, "index"),
    join(gitDir, "logs", "HEAD"),
    join(commonDir, "packed-refs"),
    join(commonDir, "refs", "heads"),
    join(commonDir, "refs", "tags"),
    join(commonDir, "refs"),
  ]
    .map((path) => {
      const stats = statSync(path, { throwIfNoEntry: false });
      return stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}` : "-";
    })
    .join("|");
}
