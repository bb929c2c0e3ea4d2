import { chmod, mkdir, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { isErrno, writeFileAtomic } from "@bridle/core/node";
import { sha256Of } from "./entries.js";
import { REWIND_LIMITS } from "./limits.js";

/**
 * Contents by their SHA-256, one file each, shared by every session of a workspace so a file kept once is
 * never copied again. Readable by the user only: they may hold anything the workspace held.
 */
export class BlobStore {
  readonly folder: string;
  readonly #known = new Set<string>();
  #bytes = 0;

  private constructor(folder: string) {
    this.folder = folder;
  }

  static async open(folder: string): Promise<BlobStore> {
    const store = new BlobStore(folder);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    for (const name of await readdir(folder)) {
      if (!/^[0-9a-f]{64}$/.test(name)) continue;
      store.#known.add(name);
      store.#bytes += (await stat(join(folder, name)).catch(() => undefined))?.size ?? 0;
    }
    return store;
  }

  has(sha256: string): boolean {
    return this.#known.has(sha256);
  }

  /**
   * Keeps `absolute`'s content under `sha256` unless already kept. False when it is not kept: too large,
   * the store full, or the file changed since it was hashed (then the checkpoint must not claim it).
   */
  async keep(sha256: string, absolute: string): Promise<boolean> {
    if (this.#known.has(sha256)) return true;
    if (!/^[0-9a-f]{64}$/.test(sha256)) return false;
    let bytes: Buffer;
    try {
      bytes = await readFile(absolute);
    } catch {
      return false;
    }
    if (bytes.length > REWIND_LIMITS.maxFileBytes) return false;
    if (this.#bytes + bytes.length > REWIND_LIMITS.maxStoreBytes) return false;
    if (sha256Of(bytes) !== sha256) return false;
    await writeFileAtomic(join(this.folder, sha256), bytes, { mode: 0o600, durable: false, ifAbsent: true });
    await chmod(join(this.folder, sha256), 0o600);
    this.#known.add(sha256);
    this.#bytes += bytes.length;
    return true;
  }

  /** The content kept under `sha256`, checked against it; undefined when missing or damaged. */
  async read(sha256: string): Promise<Buffer | undefined> {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return undefined;
    try {
      const bytes = await readFile(join(this.folder, sha256));
      return sha256Of(bytes) === sha256 ? bytes : undefined;
    } catch (error) {
      if (isErrno(error, "ENOENT")) return undefined;
      throw error;
    }
  }
}
