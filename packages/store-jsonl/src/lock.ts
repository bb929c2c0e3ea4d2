import { open, readFile, unlink } from "node:fs/promises";
import { BridleError, isErrno } from "@bridle/core";

// Locks this process holds, so a second store instance in the same process is refused like another process.
const held = new Set<string>();

/** The one-writer-per-session lock: a file holding the writer's pid, taken over when that process is gone. */
export class WriterLock {
  readonly path: string;
  #released = false;

  private constructor(path: string) {
    this.path = path;
  }

  static async acquire(path: string, sessionId: string): Promise<WriterLock> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (held.has(path)) throw conflict(sessionId, "another store instance in this process", path);
      try {
        const handle = await open(path, "wx");
        await handle.writeFile(`${process.pid}\n`);
        await handle.close();
        held.add(path);
        return new WriterLock(path);
      } catch (error) {
        if (!isErrno(error, "EEXIST")) throw error;
      }
      const owner = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw conflict(sessionId, `process ${owner}`, path);
      }
      // The writer died without releasing it (a crash): the lock is stale, take it over.
      await unlink(path).catch((error: unknown) => {
        if (!isErrno(error, "ENOENT")) throw error;
      });
    }
    throw conflict(sessionId, "a writer that keeps re-taking the lock", path);
  }

  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    held.delete(this.path);
    await unlink(this.path).catch(() => {});
  }
}

/** Whether the lock at `path` is held by a live process: this one (by this module), or another. */
export async function lockHeld(path: string): Promise<boolean> {
  const owner = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
  if (!Number.isInteger(owner) || owner <= 0) return false;
  return owner === process.pid ? held.has(path) : isAlive(owner);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, "EPERM");
  }
}

function conflict(sessionId: string, owner: string, path: string): BridleError {
  return new BridleError(
    "store_conflict",
    `session "${sessionId}" is open for writing by ${owner} (lock ${path}); one writer per session: close it first`,
  );
}
