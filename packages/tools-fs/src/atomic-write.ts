import { randomBytes } from "node:crypto";
import { chown, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isErrno } from "@bridle/core";

export interface AtomicWriteOptions {
  /** Mode for a new file (an existing file keeps its own). Default 0o644 before the umask. */
  readonly mode?: number;
  readonly signal?: AbortSignal;
}

/**
 * Replace a file's bytes all at once: write a temp file beside it, flush it, give it the old file's mode
 * (and owner, when running as root), then rename it over the target. A reader sees the old file or the
 * new one, never half of either; a crash leaves at worst a stray temp file, never a truncated target.
 */
export async function writeFileAtomic(
  path: string,
  data: Uint8Array | string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const existing = await stat(path).catch((error: unknown) => {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  });
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.bridle-tmp`);
  const handle = await open(temp, "wx", existing ? existing.mode & 0o7777 : (options.mode ?? 0o644));
  let renamed = false;
  try {
    try {
      await handle.writeFile(data, { signal: options.signal });
      // open() applied the umask; an existing file's exact mode wins.
      if (existing) await handle.chmod(existing.mode & 0o7777);
      if (existing && process.getuid?.() === 0 && existing.uid !== 0) {
        await chown(temp, existing.uid, existing.gid).catch(() => {});
      }
      await handle.datasync();
    } finally {
      await handle.close();
    }
    options.signal?.throwIfAborted();
    await rename(temp, path);
    renamed = true;
  } finally {
    if (!renamed) await unlink(temp).catch(() => {});
  }
}
