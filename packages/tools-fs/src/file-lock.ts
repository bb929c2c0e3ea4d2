import { constants } from "node:fs";
import { open, readFile, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { isErrno, ToolFailure } from "@bridle/core";
import { type HeldDir, raced, within } from "./descriptor.js";

// One queue per real path, shared by every toolkit in the process: two mutating calls on one file
// (parallel runs, or a hashline edit beside an exact edit) never interleave their read-check-write.
const tails = new Map<string, Promise<void>>();

/** Run `task` once every earlier task on the same path in this process has settled. */
export async function withFileLock<T>(path: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(path) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(path, tail);
  await previous;
  try {
    return await task();
  } finally {
    release();
    if (tails.get(path) === tail) tails.delete(path);
  }
}

/** How long a call waits for another process's lock on the same file before reporting a Conflict. */
const LOCK_WAIT_MS = 15_000;
/** A lock older than this is a crashed holder's: a read-check-write takes milliseconds, not this. */
const LOCK_STALE_MS = 30_000;
const LOCK_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const host = hostname();

function lockName(name: string): string {
  return `.${name}.bridle-lock`;
}

/**
 * Take the cross-process lock on `name` in the held folder: a lock file created with O_EXCL beside it,
 * holding this process's pid and host. Other Bridle processes (another agent, a second CLI) wait for it;
 * a lock whose process is gone, or older than 30 s, is taken over. Writers that do not take it (an
 * editor, a shell) are caught by the content check at commit instead. Resolves to the release function.
 */
export async function lockAcross(
  dir: HeldDir,
  name: string,
  shown: string,
  signal?: AbortSignal,
): Promise<() => Promise<void>> {
  const path = within(dir, lockName(name));
  const token = `${process.pid} ${host} ${Date.now()} ${Math.random().toString(36).slice(2)}`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    signal?.throwIfAborted();
    try {
      // ENOENT here means the held folder was removed since it was opened (another process swapped it).
      const handle = await raced(shown, open(path, LOCK_FLAGS, 0o644));
      try {
        await handle.writeFile(token);
      } finally {
        await handle.close();
      }
      return async () => {
        // Remove it only while it is still ours (a holder presumed dead may have lost it to a takeover).
        if ((await readFile(path, "utf8").catch(() => "")) === token) await unlink(path).catch(() => {});
      };
    } catch (error) {
      if (!isErrno(error, "EEXIST")) throw error;
    }
    if (await isStale(path)) {
      await unlink(path).catch(() => {});
      continue;
    }
    if (Date.now() > deadline) {
      throw new ToolFailure(
        "Conflict",
        `${shown} is being changed by another process (lock file ${lockName(name)} beside it); nothing was written. Try again shortly; if no other agent is running, delete that lock file.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait));
  }
}

async function isStale(path: string): Promise<boolean> {
  const content = await readFile(path, "utf8").catch(() => undefined);
  // Gone already (released): not stale, just try again.
  if (content === undefined) return false;
  // Being written this very moment, or its writer died between creating and filling it.
  if (content === "") {
    const age = await stat(path).then(
      (stats) => Date.now() - stats.mtimeMs,
      () => 0,
    );
    return age > LOCK_STALE_MS;
  }
  const [pid, owner, since] = content.split(" ");
  if (Date.now() - Number(since) > LOCK_STALE_MS || !Number.isFinite(Number(since))) return true;
  if (owner !== host) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return isErrno(error, "ESRCH");
  }
}
