import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { BridleError, isErrno, ToolFailure } from "@bridle/core";

/**
 * Replace a file's bytes atomically: write a temp file beside it, flush it, give it the old file's mode
 * (and owner, where permitted), then rename it over the original. Readers see the old bytes or the new
 * ones, never a torn file, and a crash leaves at worst a stray temp file.
 */
export async function writeFileAtomic(path: string, data: Buffer, previous: Stats): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(data);
      await handle.chmod(previous.mode & 0o7777);
      await handle.chown(previous.uid, previous.gid).catch(() => {
        // Only root may give a file away; otherwise the new file keeps the writer as owner.
      });
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    if (isErrno(error, "EACCES") || isErrno(error, "EPERM") || isErrno(error, "EROFS")) {
      throw new ToolFailure("Denied", `cannot write ${basename(path)}: permission denied`, { cause: error });
    }
    throw new BridleError("tool_infrastructure", `writing ${path} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

const queues = new Map<string, Promise<unknown>>();

/**
 * Run `task` after every earlier task on the same path has finished, so two edits of one file in this
 * process never interleave their read-check-write steps. Shared by every tool instance in the process.
 */
export async function withFileLock<T>(path: string, task: () => Promise<T>): Promise<T> {
  const before = queues.get(path) ?? Promise.resolve();
  const run = before.then(task, task);
  const tail = run.catch(() => {});
  queues.set(path, tail);
  try {
    return await run;
  } finally {
    if (queues.get(path) === tail) queues.delete(path);
  }
}
