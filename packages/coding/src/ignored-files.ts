import type { Dirent } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { git } from "./git.js";
import { scanAddedLines } from "./secret-scan.js";
import { inUnwatchedDir, UNWATCHED_DIRS } from "./unwatched.js";

// Limits on the ignored files watched (documented in the README): past them the list says it was cut.
const MAX_IGNORED_FILES = 20_000;
const MAX_SCANNED_BYTES = 1024 * 1024;
const MAX_FINDINGS = 5;

/** A file the agent wrote (created or changed) where git does not look: a path .gitignore matches. */
export interface IgnoredWrite {
  readonly path: string;
  readonly change: "added" | "modified";
  /** What the secret scan found in it (the kind and line, never the value). */
  readonly secrets: readonly string[];
}

/** Size, inode and change time of every ignored file, so a later listing tells which were written. */
export interface IgnoredSnapshot {
  readonly files: ReadonlyMap<string, string>;
  readonly truncated: boolean;
}

/**
 * The ignored files under the workspace (`prefix` is its path in the repository), by signature. git
 * names ignored folders without walking them; they are walked here, bounded, leaving out node_modules.
 */
export async function snapshotIgnored(repoRoot: string, prefix: string): Promise<IgnoredSnapshot> {
  const out = await git(repoRoot, [
    "status",
    "--porcelain=v2",
    "-z",
    "--ignored=matching",
    "--untracked-files=all",
    "--",
    prefix === "" ? "." : prefix,
  ]);
  const files = new Map<string, string>();
  let truncated = false;
  const add = async (path: string): Promise<boolean> => {
    if (files.size >= MAX_IGNORED_FILES) {
      truncated = true;
      return false;
    }
    const info = await lstat(join(repoRoot, prefix, path)).catch(() => undefined);
    if (info?.isFile()) files.set(path, `${info.size}:${info.ino}:${info.mtimeMs}:${info.ctimeMs}`);
    return true;
  };
  for (const record of out.toString("utf8").split("\0")) {
    if (!record.startsWith("! ") || !record.startsWith(`! ${prefix}`)) continue;
    const path = record.slice(2 + prefix.length);
    if (inUnwatchedDir(path)) continue;
    if (!path.endsWith("/")) {
      if (!(await add(path))) break;
      continue;
    }
    const pending = [path.slice(0, -1)];
    while (pending.length > 0 && !truncated) {
      const dir = pending.pop() as string;
      let entries: Dirent[];
      try {
        entries = await readdir(join(repoRoot, prefix, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const child = `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!UNWATCHED_DIRS.has(entry.name)) pending.push(child);
        } else if (entry.isFile() && !(await add(child))) break;
      }
    }
    if (truncated) break;
  }
  return { files, truncated };
}

/**
 * The ignored files that are new or changed since `before`, each secret-scanned whole (a file up to
 * 1 MiB; a larger one is listed unscanned).
 */
export async function ignoredWrites(
  repoRoot: string,
  prefix: string,
  before: IgnoredSnapshot,
): Promise<{ readonly writes: IgnoredWrite[]; readonly truncated: boolean }> {
  // A listing git cannot make is no reason to fail the handoff: it says the list may be incomplete.
  const now = await snapshotIgnored(repoRoot, prefix).catch(() => undefined);
  if (now === undefined) return { writes: [], truncated: true };
  const writes: IgnoredWrite[] = [];
  for (const [path, signature] of [...now.files].sort(([a], [b]) => a.localeCompare(b))) {
    const was = before.files.get(path);
    if (was === signature) continue;
    writes.push({
      path,
      change: was === undefined ? "added" : "modified",
      secrets: await secretsIn(join(repoRoot, prefix, path), path),
    });
  }
  return { writes, truncated: now.truncated || before.truncated };
}

async function secretsIn(absolute: string, path: string): Promise<string[]> {
  const info = await lstat(absolute).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_SCANNED_BYTES) return [];
  const bytes = await readFile(absolute).catch(() => undefined);
  if (!bytes || bytes.subarray(0, 8192).includes(0)) return [];
  const lines = bytes.toString("utf8").split("\n");
  // Known credential shapes only: ignored folders hold build output, whose random-looking text is no secret.
  const findings = scanAddedLines(path, lines, 1, { knownShapesOnly: true });
  const shown = findings.slice(0, MAX_FINDINGS).map((finding) => `${finding.what} at line ${finding.line}`);
  if (findings.length > MAX_FINDINGS) shown.push(`${findings.length - MAX_FINDINGS} more`);
  return shown;
}
