import type { BigIntStats } from "node:fs";
import { lstat, mkdir } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { isErrno, ToolFailure, type Workspace } from "@bridle/core";
import { replaceFile } from "./atomic-write.js";
import { changedUnder, type HeldDir, holdDir, openInDir, raced, within } from "./descriptor.js";
import { lockAcross, withFileLock } from "./file-lock.js";
import type { FileTracker } from "./file-tracker.js";
import { formatCount, resolveExistingOrSuggest } from "./paths.js";
import { type FileSnapshot, snapshotOf } from "./snapshot.js";

export interface CurrentFile {
  /** The file's bytes, when it is small enough to hold (always, when `requireBytes`). */
  readonly bytes?: Buffer;
  readonly snapshot: FileSnapshot;
}

/** What a change sees: the file's real path, how to name it to the model, and what is there now. */
export interface UpdateTarget {
  /** The file's real path (its folder's, as the held descriptor gives it, and its name). */
  readonly real: string;
  /** The path as the model should see it. */
  readonly shown: string;
  /** Undefined when the file does not exist (only with `create`). */
  readonly current: CurrentFile | undefined;
}

/** What a change decided: the new bytes (undefined writes nothing) and what to answer the model. */
export interface FileChange<T> {
  /** The file's new bytes; undefined leaves it as it is. */
  readonly bytes: Uint8Array | undefined;
  /** What updateFile resolves to. */
  readonly value: T;
}

export interface UpdateOptions {
  /** Whether the file may be missing (write_file): then missing folders are created too. */
  readonly create: boolean;
  /** The largest file whose bytes are loaded; a larger one is refused, or stat-only when not `requireBytes`. */
  readonly maxBytes: number;
  /** Refuse a file over `maxBytes` (an edit needs its bytes) instead of handing over its stats only. */
  readonly requireBytes: boolean;
  /** After a write, the new file is remembered as this run's view of it. */
  readonly tracker: FileTracker;
  /** The run whose view the tracker updates. */
  readonly runId: string;
  /** Aborts the wait for the lock and the write; nothing is written once it fires. */
  readonly signal?: AbortSignal;
}

/**
 * Change one file the way every mutating tool does. The folder that holds the file is opened and its
 * descriptor's real path checked against the workspace; from then on the file, its lock, its temp file
 * and the rename are all reached through that descriptor, so a symbolic link or folder swapped mid-call
 * cannot move the write elsewhere. The change is serialised with other calls on the same file in this
 * process and, through a lock file, in other Bridle processes; at commit the file must still be what
 * `change` saw (by hash), otherwise the call is a Conflict and nothing is written.
 */
export async function updateFile<T>(
  workspace: Workspace,
  path: string,
  options: UpdateOptions,
  change: (target: UpdateTarget) => FileChange<T> | Promise<FileChange<T>>,
): Promise<T> {
  const resolved = options.create
    ? await resolveForCreate(workspace, path)
    : await resolveForChange(workspace, path);
  const name = basename(resolved);
  const dir = await holdDir(workspace, dirname(resolved), path);
  try {
    const real = join(dir.real, name);
    if (workspace.isSecret(real)) {
      throw new ToolFailure(
        "Denied",
        `${path} looks like a secret (credentials, keys, .env); access is denied`,
      );
    }
    // The folder actually opened is judged again: one swapped for a link into .git after the resolution
    // above would otherwise carry the write there.
    const reason = workspace.protectedReason(real);
    if (reason) throw new ToolFailure("Denied", `${path} is protected: ${reason}`);
    const shown = workspace.display(real);
    return await withFileLock(real, async () => {
      const release = await lockAcross(dir, name, shown, options.signal);
      try {
        const current = await loadCurrent(workspace, dir, name, shown, options);
        if (current === undefined && !options.create)
          throw new ToolFailure("NotFound", `${shown}: no such file`);
        const { bytes, value } = await change({ real, shown, current });
        if (bytes === undefined) {
          if (current) options.tracker.remember(options.runId, real, current.snapshot);
          return value;
        }
        if (options.signal?.aborted)
          throw new ToolFailure("Cancelled", "the change was cancelled before writing");
        const stats = await replaceFile(workspace, dir, name, bytes, {
          shown,
          expected: current?.snapshot,
          ...(options.signal ? { signal: options.signal } : {}),
        });
        options.tracker.remember(options.runId, real, snapshotOf(stats, bytes));
        return value;
      } finally {
        await release();
      }
    });
  } finally {
    await dir.handle.close();
  }
}

/** The file as it is now, read through the held folder: undefined when it does not exist. */
async function loadCurrent(
  workspace: Workspace,
  dir: HeldDir,
  name: string,
  shown: string,
  options: UpdateOptions,
): Promise<CurrentFile | undefined> {
  // Missing is a state (a new file), not a race; a link in the last place is not followed.
  const handle = await openInDir(workspace, dir, name, shown);
  if (handle === undefined) return undefined;
  try {
    const stats: BigIntStats = await handle.stat({ bigint: true });
    if (stats.isDirectory()) throw new ToolFailure("InvalidInput", `${shown} is a directory`);
    if (!stats.isFile()) throw new ToolFailure("InvalidInput", `${shown} is not a regular file`);
    if (Number(stats.size) > options.maxBytes) {
      if (options.requireBytes) {
        throw new ToolFailure(
          "InvalidInput",
          `${shown} is ${formatCount(Number(stats.size))} bytes, more than the ${formatCount(options.maxBytes)} this tool edits; change it with a shell command instead.`,
        );
      }
      return { snapshot: snapshotOf(stats) };
    }
    const bytes = await handle.readFile(options.signal ? { signal: options.signal } : {});
    return { bytes, snapshot: snapshotOf(stats, bytes) };
  } finally {
    await handle.close();
  }
}

/**
 * The real path of an existing file to change. It is judged as a write first (core refuses protected
 * paths there), so `.git/config` is Denied whether or not it exists; then it must exist, with close names
 * offered when it does not.
 */
async function resolveForChange(workspace: Workspace, path: string): Promise<string> {
  await raced(path, workspace.resolveForWrite(path).catch(missingIsNotJudged));
  return raced(path, resolveExistingOrSuggest(workspace, path));
}

/** A missing folder, or a file where a folder should be: not a verdict, the lookup after it says which. */
function missingIsNotJudged(error: unknown): void {
  if ((error instanceof ToolFailure && error.kind === "NotFound") || isErrno(error, "ENOTDIR")) return;
  throw error;
}

/**
 * The real path a new or existing file is written at. Missing folders are made one at a time, each
 * inside a folder whose descriptor was checked, so a swapped ancestor cannot make them elsewhere.
 */
async function resolveForCreate(workspace: Workspace, path: string): Promise<string> {
  try {
    return await raced(path, workspace.resolveForWrite(path));
  } catch (error) {
    if (!(error instanceof ToolFailure) || error.kind !== "NotFound") throw error;
  }
  const absolute = resolve(workspace.root, path);
  let ancestor = dirname(absolute);
  const missing: string[] = [];
  for (;;) {
    const found = await raced(
      path,
      lstat(ancestor).catch((error: unknown) => {
        if (isErrno(error, "ENOENT")) return undefined;
        throw error;
      }),
    );
    if (found) break;
    const up = dirname(ancestor);
    if (up === ancestor) throw changedUnder(path);
    missing.unshift(basename(ancestor));
    ancestor = up;
  }
  // The ancestor is checked by the policy first (it may be a link that leads in), then by descriptor.
  const realAncestor = await raced(path, workspace.resolveExisting(ancestor)).catch((error: unknown) => {
    if (error instanceof ToolFailure && error.kind === "Denied") {
      throw new ToolFailure("Denied", `${path} is outside the workspace (${workspace.roots.join(", ")})`);
    }
    throw error;
  });
  let dir = await holdDir(workspace, realAncestor, path);
  try {
    for (const part of missing) {
      // The held folder can be removed under us (its descriptor then names a deleted folder): a Conflict.
      await raced(
        path,
        mkdir(within(dir, part)).catch((error: unknown) => {
          if (!isErrno(error, "EEXIST")) throw error;
        }),
      );
      const next = await holdDir(workspace, within(dir, part), path);
      await dir.handle.close();
      dir = next;
    }
  } finally {
    await dir.handle.close();
  }
  return raced(path, workspace.resolveForWrite(join(dir.real, basename(absolute))));
}
