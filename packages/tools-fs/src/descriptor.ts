import { constants, existsSync } from "node:fs";
import { type FileHandle, open, readlink, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { isErrno, ToolFailure, type Workspace } from "@bridle/core";

// Linux names every open descriptor under /proc/self/fd: reading the link gives the path the kernel has for
// the opened file (not the path we asked for), and a path *through* it starts at the opened folder itself,
// whatever its name now leads to. That is openat()/renameat() for a runtime that has neither.
const PROC_FD = "/proc/self/fd";
export const procFd = process.platform === "linux" && existsSync(PROC_FD);

/** Open for reading; never blocks on a FIFO swapped in, never follows a link in the last component. */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const DIR_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_DIRECTORY;

/**
 * The path `fd` really has, or undefined when the file was deleted (replaced by a rename) since it was
 * opened, which is a race to retry, not an escape. On Linux it is the kernel's own answer. Elsewhere it is
 * the realpath of the path it was opened by, accepted only when that path still leads to the same file;
 * that is as good as it gets without descriptor paths: a swap landing between the two looks is missed.
 */
export async function descriptorPath(handle: FileHandle, openedAs: string): Promise<string | undefined> {
  if (procFd) {
    const path = await readlink(`${PROC_FD}/${handle.fd}`);
    // The kernel marks a deleted file's path so; a file merely named like that still has a link.
    if (path.endsWith(" (deleted)") && (await handle.stat()).nlink === 0) return undefined;
    // Something without a path (a pipe, an anonymous file) is nowhere inside.
    return path.startsWith("/") ? path : "";
  }
  const real = await realpath(openedAs).catch(() => undefined);
  if (real === undefined) return undefined;
  const [now, held] = await Promise.all([stat(real, { bigint: true }), handle.stat({ bigint: true })]);
  return now.ino === held.ino && now.dev === held.dev ? real : undefined;
}

/** A path that reaches `name` inside the folder `dir` holds, however the folder's own path changes. */
export function within(dir: HeldDir, name: string): string {
  return join(procFd ? `${PROC_FD}/${dir.handle.fd}` : dir.real, name);
}

/** A descriptor path that reaches the opened object itself (for readdir, or a child's working folder). */
export function throughDescriptor(handle: FileHandle, real: string): string {
  return procFd ? `${PROC_FD}/${handle.fd}` : real;
}

/** The same path as another process sees it: /proc/self would be that process, so name this one. */
export function throughDescriptorFor(handle: FileHandle, real: string): string {
  return procFd ? `/proc/${process.pid}/fd/${handle.fd}` : real;
}

/** An open folder whose real path was checked to be inside the workspace after it was opened. */
export interface HeldDir {
  readonly handle: FileHandle;
  readonly real: string;
}

/**
 * Check an opened descriptor against the workspace: its real path must be inside a root and not secret.
 * Throws Denied (and closes it) otherwise. `shown` is the path as the model wrote it.
 */
export async function assertDescriptorInside(
  workspace: Workspace,
  handle: FileHandle,
  openedAs: string,
  shown: string,
): Promise<string> {
  const real = await descriptorPath(handle, openedAs);
  if (real === undefined) {
    await handle.close();
    throw changedUnder(shown);
  }
  if (real === "" || !(await workspace.contains(real))) {
    await handle.close();
    throw new ToolFailure(
      "Denied",
      `${shown} led outside the workspace when it was opened (a symbolic link or folder changed under it); nothing was read or written there`,
    );
  }
  if (workspace.isSecret(real)) {
    await handle.close();
    throw new ToolFailure(
      "Denied",
      `${shown} looks like a secret (credentials, keys, .env); access is denied`,
    );
  }
  return real;
}

/** Open a folder by its (checked) real path and check the folder actually opened. */
export async function holdDir(workspace: Workspace, realDir: string, shown: string): Promise<HeldDir> {
  const handle = await openOrChanged(realDir, DIR_FLAGS, shown);
  return { handle, real: await assertDescriptorInside(workspace, handle, realDir, shown) };
}

/**
 * open(), with the errors a swapped path gives turned into a Conflict the model can retry: ELOOP (the last
 * component became a link), ENOTDIR (a folder became a file or link), ENOENT (it went away mid-call).
 */
async function openOrChanged(path: string, flags: number, shown: string, mode?: number) {
  try {
    return await open(path, flags, mode);
  } catch (error) {
    if (isErrno(error, "ELOOP") || isErrno(error, "ENOTDIR") || isErrno(error, "ENOENT")) {
      throw changedUnder(shown);
    }
    throw error;
  }
}

/** The policy's own resolution, with a path that vanished or changed kind half-way reported as such. */
export async function raced<T>(shown: string, resolution: Promise<T>): Promise<T> {
  try {
    return await resolution;
  } catch (error) {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR") || isErrno(error, "ELOOP")) {
      throw changedUnder(shown);
    }
    throw error;
  }
}

export function changedUnder(shown: string): ToolFailure {
  return new ToolFailure(
    "Conflict",
    `${shown} changed while it was being opened (a file, folder or symbolic link on its path was replaced); nothing was done. Try again.`,
  );
}

/**
 * Open `name` in the held folder for reading, never following a link there, and check the descriptor:
 * undefined when there is no such entry, Conflict when a link or other non-file took its place.
 */
export async function openInDir(
  workspace: Workspace,
  dir: HeldDir,
  name: string,
  shown: string,
): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(within(dir, name), READ_FLAGS);
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    if (isErrno(error, "ELOOP")) throw changedUnder(shown);
    throw error;
  }
  await assertDescriptorInside(workspace, handle, join(dir.real, name), shown);
  return handle;
}
