import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { git } from "./git.js";

// Commits listed by name; more are counted.
const MAX_COMMITS = 20;

export interface AgentCommit {
  readonly sha: string;
  readonly subject: string;
}

/** HEAD now, or undefined in a repository with no commit yet. */
export async function currentHead(repoRoot: string): Promise<string | undefined> {
  try {
    const out = (await git(repoRoot, ["rev-parse", "--verify", "--quiet", "HEAD"])).toString("utf8").trim();
    return out === "" ? undefined : out;
  } catch {
    return undefined;
  }
}

/**
 * The commits HEAD gained since `baseline` (newest first, at most MAX_COMMITS), and how many there are.
 * HEAD moved elsewhere (a reset, a checkout) has none of them: the caller reports the move itself.
 */
export async function commitsSince(
  repoRoot: string,
  baseline: string | undefined,
  head: string,
): Promise<{ readonly commits: AgentCommit[]; readonly total: number }> {
  const range = baseline === undefined ? [head] : [`${baseline}..${head}`];
  const count = Number((await git(repoRoot, ["rev-list", "--count", ...range])).toString("utf8").trim());
  const log = await git(repoRoot, ["log", "-z", `-n${MAX_COMMITS}`, "--format=%H %s", ...range]);
  const commits = log
    .toString("utf8")
    .split("\0")
    .filter((line) => line !== "")
    .map((line) => ({ sha: line.slice(0, 40), subject: line.slice(41, 161) }));
  return { commits, total: Number.isFinite(count) ? count : commits.length };
}

/** Workspace-relative paths whose content differs between `baseline` and `head` (all of head's without one). */
export async function pathsChangedBetween(
  repoRoot: string,
  prefix: string,
  baseline: string | undefined,
  head: string,
): Promise<string[]> {
  const where = prefix === "" ? "." : prefix;
  const out =
    baseline === undefined
      ? await git(repoRoot, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", head, "--", where])
      : await git(repoRoot, ["diff", "--name-only", "-z", "--no-renames", baseline, head, "--", where]);
  return out
    .toString("utf8")
    .split("\0")
    .filter((path) => path.startsWith(prefix) && path !== "")
    .map((path) => path.slice(prefix.length));
}

export interface ModeChange {
  readonly path: string;
  /** git's file modes: 100644 or 100755. */
  readonly from: string;
  readonly to: string;
}

/**
 * Files whose executable bit differs from the baseline commit's (a `chmod +x`), among `paths`. `userModes`
 * holds the modes of the files the user had changed before the run, which are their baseline instead.
 */
export async function modeChanges(
  repoRoot: string,
  prefix: string,
  baseline: string | undefined,
  paths: readonly string[],
  userModes: ReadonlyMap<string, string>,
): Promise<ModeChange[]> {
  const was = new Map(userModes);
  const asked = paths.filter((path) => !was.has(path) && !/[\n\r]/.test(path));
  if (baseline !== undefined) {
    for (let i = 0; i < asked.length; i += 200) {
      const batch = asked.slice(i, i + 200).map((path) => `${prefix}${path}`);
      const out = await git(repoRoot, ["ls-tree", "-z", "--full-tree", baseline, "--", ...batch]);
      for (const entry of out.toString("utf8").split("\0")) {
        const match = /^(\d{6}) blob [0-9a-f]+\t(.*)$/s.exec(entry);
        if (match?.[2]?.startsWith(prefix)) was.set(match[2].slice(prefix.length), match[1] as string);
      }
    }
  }
  const changes: ModeChange[] = [];
  for (const path of [...new Set(paths)].sort()) {
    const from = was.get(path);
    if (from !== "100644" && from !== "100755") continue;
    const to = await fileMode(join(repoRoot, prefix, path));
    if (to !== undefined && to !== from) changes.push({ path, from, to });
  }
  return changes;
}

/** A regular file's mode as git records it, or undefined for anything else (gone, a link, a folder). */
export async function fileMode(absolute: string): Promise<string | undefined> {
  const info = await lstat(absolute).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  return info.mode & 0o100 ? "100755" : "100644";
}
