import { readFile, stat } from "node:fs/promises";
import { isErrno, ToolFailure } from "@bridle/core";
import { writeFileAtomic } from "./atomic-write.js";
import type { FileTracker } from "./file-tracker.js";
import { formatCount } from "./paths.js";
import { type FileSnapshot, snapshotOf } from "./snapshot.js";

export interface CurrentFile {
  /** The file's bytes, when it is small enough to hold (always, for edits). */
  readonly bytes?: Buffer;
  readonly snapshot: FileSnapshot;
}

/**
 * The file as it is now, for a mutating tool that already holds the path's lock: undefined when it does
 * not exist, its bytes when at most `maxBytes`, a stat-only snapshot otherwise (or a refusal, when
 * `requireBytes`).
 */
export async function loadCurrent(
  path: string,
  shown: string,
  maxBytes: number,
  options: { requireBytes: boolean; signal?: AbortSignal },
): Promise<CurrentFile | undefined> {
  const stats = await stat(path, { bigint: true }).catch((error: unknown) => {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  });
  if (!stats) return undefined;
  if (stats.isDirectory()) throw new ToolFailure("InvalidInput", `${shown} is a directory`);
  if (!stats.isFile()) throw new ToolFailure("InvalidInput", `${shown} is not a regular file`);
  if (Number(stats.size) > maxBytes) {
    if (options.requireBytes) {
      throw new ToolFailure(
        "InvalidInput",
        `${shown} is ${formatCount(Number(stats.size))} bytes, more than the ${formatCount(maxBytes)} this tool edits; change it with a shell command instead.`,
      );
    }
    return { snapshot: snapshotOf(stats) };
  }
  const bytes = await readFile(path, options.signal ? { signal: options.signal } : {});
  return { bytes, snapshot: snapshotOf(stats, bytes) };
}

/**
 * The commit step every mutating file tool shares: write atomically, then remember the result as this
 * run's view of the file, so the run can edit it again without reading it back.
 */
export async function commitWrite(
  tracker: FileTracker,
  runId: string,
  path: string,
  bytes: Buffer,
  signal?: AbortSignal,
): Promise<void> {
  await writeFileAtomic(path, bytes, signal ? { signal } : {});
  tracker.remember(runId, path, snapshotOf(await stat(path, { bigint: true }), bytes));
}
