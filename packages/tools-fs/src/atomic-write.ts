import { type BigIntStats, constants } from "node:fs";
import { lstat, open, rename, unlink } from "node:fs/promises";
import { isErrno, ToolFailure, type Workspace } from "@bridle/core";
import { tempSibling } from "@bridle/core/node";
import {
  assertDescriptorInside,
  changedUnder,
  type HeldDir,
  openInDir,
  raced,
  within,
} from "./descriptor.js";
import { type FileSnapshot, sameContent, snapshotOf } from "./snapshot.js";

export interface ReplaceOptions {
  /** The path as the model wrote it, for messages. */
  readonly shown: string;
  /**
   * What the file must still be when the new bytes go in: the snapshot the change was computed from, or
   * undefined when the file must still not exist. Anything else is a Conflict and nothing is written.
   */
  readonly expected: FileSnapshot | undefined;
  readonly signal?: AbortSignal;
}

const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Replace `name` in the held folder all at once: write a temp file in that same folder (reached through
 * its descriptor, so a folder swapped on the way cannot redirect it), flush it, give it the old file's
 * mode (and owner, when running as root), check the file on disk is still the one the change was
 * computed from, then rename the temp file over it inside the same folder. A reader sees the old file or
 * the new one; a crash leaves at worst a stray temp file. Resolves to the new file's stats.
 */
export async function replaceFile(
  workspace: Workspace,
  dir: HeldDir,
  name: string,
  data: Uint8Array,
  options: ReplaceOptions,
): Promise<BigIntStats> {
  const target = within(dir, name);
  const existing = await lstat(target).catch((error: unknown) => {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  });
  if (existing && !existing.isFile()) throw changedUnder(options.shown);
  const temp = tempSibling(target);
  // Through the folder's descriptor path (here and at the rename): ENOENT means the held folder was
  // removed since it was opened, by another process swapping it.
  const handle = await raced(
    options.shown,
    open(temp, TEMP_FLAGS, existing ? existing.mode & 0o7777 : 0o644),
  );
  let renamed = false;
  try {
    try {
      await handle.writeFile(data, options.signal ? { signal: options.signal } : {});
      // open() applied the umask; an existing file's exact mode wins.
      if (existing) await handle.chmod(existing.mode & 0o7777);
      if (existing && process.getuid?.() === 0 && existing.uid !== 0) {
        await handle.chown(existing.uid, existing.gid).catch(() => {});
      }
      await handle.datasync();
    } finally {
      await handle.close();
    }
    options.signal?.throwIfAborted();
    await assertStill(workspace, dir, name, options);
    // The folder is checked again last: where the descriptor path cannot pin it (no /proc), this is the
    // check that it is still the folder inside the workspace.
    await assertDescriptorInside(workspace, dir.handle, dir.real, options.shown).then((real) => {
      if (real !== dir.real) throw changedUnder(options.shown);
    });
    await raced(options.shown, rename(temp, target));
    renamed = true;
    return await lstat(target, { bigint: true });
  } finally {
    if (!renamed) await unlink(temp).catch(() => {});
  }
}

/** Compare what is on disk now with what the change was computed from. */
async function assertStill(
  workspace: Workspace,
  dir: HeldDir,
  name: string,
  options: ReplaceOptions,
): Promise<void> {
  const now = await readSnapshot(workspace, dir, name, options.shown, options.expected?.hash !== undefined);
  if (now === undefined && options.expected === undefined) return;
  if (now !== undefined && options.expected !== undefined && sameContent(options.expected, now)) return;
  const what =
    options.expected === undefined
      ? "was created by someone else"
      : now === undefined
        ? "was deleted"
        : "was changed by someone else";
  throw new ToolFailure(
    "Conflict",
    `${options.shown} ${what} while this change was being made; nothing was written. Read it again, then redo the change against what is there now.`,
  );
}

/** The file's snapshot as it is now (with a hash of its bytes when asked), or undefined when it is gone. */
async function readSnapshot(
  workspace: Workspace,
  dir: HeldDir,
  name: string,
  shown: string,
  withHash: boolean,
): Promise<FileSnapshot | undefined> {
  const handle = await openInDir(workspace, dir, name, shown);
  if (handle === undefined) return undefined;
  try {
    const stats = await handle.stat({ bigint: true });
    if (!stats.isFile()) throw changedUnder(shown);
    return snapshotOf(stats, withHash ? await handle.readFile() : undefined);
  } finally {
    await handle.close();
  }
}
