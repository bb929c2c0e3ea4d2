import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isErrno } from "@bridle/core";
import { writeFileAtomic } from "@bridle/core/node";

/**
 * Large tool outputs, one file per distinct content, named by its sha256: written once however many events
 * reference it. A blob is complete before any line references it (written atomically, then named).
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
    // Complete before it has its name, and never replacing a good copy another writer just stored.
    const created = await writeFileAtomic(path, text, { ifAbsent: true, durable: sync });
    // Already stored (by us earlier, or another writer); a copy that no longer matches its name is
    // damaged, and this write is the chance to repair it.
    if (!created && !(await holds(path, hash))) await writeFileAtomic(path, text, { durable: sync });
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
