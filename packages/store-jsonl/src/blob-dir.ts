import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { link, mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { isErrno } from "@bridle/core";

/**
 * Large tool outputs, one file per distinct content, named by its sha256: written once however many events
 * reference it. A blob is complete before any line references it (temp file, then a hard link).
 */
export class BlobDir {
  readonly dir: string;
  readonly #known = new Set<string>();

  constructor(dir: string) {
    this.dir = dir;
  }

  pathOf(hash: string): string {
    return join(this.dir, hash.slice(0, 2), hash);
  }

  async put(hash: string, text: string, sync: boolean): Promise<void> {
    if (this.#known.has(hash)) return;
    const path = this.pathOf(hash);
    await mkdir(join(this.dir, hash.slice(0, 2)), { recursive: true });
    const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    const handle = await open(temp, "w");
    try {
      await handle.writeFile(text);
      if (sync) await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temp, path);
    } catch (error) {
      if (!isErrno(error, "EEXIST")) throw error;
      // Already stored (by us earlier, or another writer); a copy that no longer matches its name is
      // damaged, and this write is the chance to repair it.
      if (!(await holds(path, hash))) await rename(temp, path);
    } finally {
      await unlink(temp).catch(() => {});
    }
    if (sync) await syncDir(join(this.dir, hash.slice(0, 2)));
    this.#known.add(hash);
  }

  /** The blob's text, or undefined when it is missing (the caller checks it against its hash). */
  get(hash: string): string | undefined {
    try {
      return readFileSync(this.pathOf(hash), "utf8");
    } catch (error) {
      if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR") || isErrno(error, "EISDIR")) return undefined;
      throw error;
    }
  }
}

async function holds(path: string, hash: string): Promise<boolean> {
  const text = await readFile(path, "utf8").catch(() => undefined);
  return text !== undefined && createHash("sha256").update(text).digest("hex") === hash;
}

/** Makes a new directory entry durable (the file's own fsync does not cover its name). */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
