import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { link, open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isErrno } from "./errno.js";

export interface AtomicWriteOptions {
  /** The new file's permission bits (the umask applies). Default 0o644; a secret wants 0o600. */
  readonly mode?: number;
  /** Flush the file and its folder's entry to disk before returning. Default true. */
  readonly durable?: boolean;
  /**
   * Only create: the file is linked into place, which fails when the name is taken (by anyone, even another
   * process at the same instant), and then nothing is written and the call returns false.
   */
  readonly ifAbsent?: boolean;
}

const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * A fresh name beside `target`, in the same folder (a rename across file systems is no longer atomic), hidden
 * and recognisable: `.<name>.<random>.bridle-tmp` (or `.bridle-<kind>`, for a backup, say).
 */
export function tempSibling(target: string, kind = "tmp"): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.bridle-${kind}`);
}

/**
 * Writes `data` to `path` so that a reader, or a crash at any point, sees the old file or the new one and
 * never a mix: the bytes go to a temp file beside it, are flushed, and the temp file is renamed over the
 * target (or, with `ifAbsent`, hard-linked to it). A crash leaves at worst a stray `.bridle-tmp` file. A
 * symlink at `path` is replaced, not followed. Resolves to true when written, false when `ifAbsent` found
 * the name taken.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<boolean> {
  const durable = options.durable ?? true;
  const temp = tempSibling(path);
  const handle = await open(temp, TEMP_FLAGS, options.mode ?? 0o644);
  let placed = false;
  try {
    try {
      await handle.writeFile(data);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.ifAbsent) {
      if (!(await linkNew(temp, path))) return false;
    } else {
      await rename(temp, path);
    }
    placed = true;
  } finally {
    // After a link the temp name is a second name of the placed file; after a rename it is gone.
    if (!placed || options.ifAbsent) await unlink(temp).catch(() => {});
  }
  if (durable) await syncFolder(dirname(path));
  return true;
}

/** `writeFileAtomic` for code that must not wait (startup, a key read before anything else runs). */
export function writeFileAtomicSync(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): boolean {
  const durable = options.durable ?? true;
  const temp = tempSibling(path);
  const fd = openSync(temp, TEMP_FLAGS, options.mode ?? 0o644);
  let placed = false;
  try {
    try {
      writeFileSync(fd, data);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (options.ifAbsent) {
      try {
        linkSync(temp, path);
      } catch (error) {
        if (isErrno(error, "EEXIST")) return false;
        throw error;
      }
    } else {
      renameSync(temp, path);
    }
    placed = true;
  } finally {
    if (!placed || options.ifAbsent) {
      try {
        unlinkSync(temp);
      } catch {}
    }
  }
  if (durable) syncFolderSync(dirname(path));
  return true;
}

/**
 * Gives the written file `temp` the name `target` only if nothing has that name: link() refuses an existing
 * name where rename() would replace it. False when the name is taken. `temp` keeps its name after a link;
 * the caller removes it. A file system without hard links gets a rename (which moves `temp`).
 */
export async function linkNew(temp: string, target: string): Promise<boolean> {
  try {
    await link(temp, target);
    return true;
  } catch (error) {
    if (isErrno(error, "EEXIST")) return false;
    if (!NO_HARD_LINKS.some((code) => isErrno(error, code))) throw error;
    await rename(temp, target);
    return true;
  }
}

const NO_HARD_LINKS = ["EPERM", "ENOTSUP", "EOPNOTSUPP", "EMLINK"];

/** Makes a new or renamed directory entry durable (the file's own fsync does not cover its name). */
export async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function syncFolderSync(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
