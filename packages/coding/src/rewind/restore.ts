import { lstat, mkdir, realpath, symlink, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isWithin, realPathOf, writeFileAtomic } from "@bridle/core/node";
import type { BlobStore } from "./blobs.js";
import type { RewindRestore } from "./checkpoints.js";

const NEVER_WRITTEN = new Set([".git", ".bridle", "node_modules", "", ".", ".."]);

/**
 * Why a checkpointed path cannot be put back safely, or undefined. The path must be a plain relative one
 * whose folders, as far as they exist, are real folders inside the workspace: a link on the way would
 * carry the write somewhere else, so it is refused rather than followed.
 */
export async function placeProblem(root: string, path: string): Promise<string | undefined> {
  const parts = path.split("/");
  if (path.startsWith("/") || parts.some((part) => NEVER_WRITTEN.has(part))) return "not a workspace path";
  const realRoot = await realpath(root);
  const absolute = join(realRoot, ...parts);
  const parent = dirname(absolute);
  const realParent = await realPathOf(parent);
  if (realParent === undefined || realParent !== parent || !isWithin(realRoot, realParent)) {
    return "a link or a path outside the workspace lies on the way";
  }
  // The nearest existing folder must be a folder (a file there would stop the folders being made).
  for (let folder = parent; isWithin(realRoot, folder); folder = dirname(folder)) {
    const info = await lstat(folder).catch(() => undefined);
    if (info === undefined) continue;
    if (!info.isDirectory()) return `${folder.slice(realRoot.length + 1)} is not a folder now`;
    break;
  }
  const info = await lstat(absolute).catch(() => undefined);
  if (info?.isDirectory()) return "a folder is there now";
  return undefined;
}

/**
 * Writes each file's checkpointed state in place: its content, a link as a link (never its target), or
 * nothing. A link found at the path is replaced, not written through. Paths were checked by the plan.
 */
export async function restoreFiles(
  root: string,
  blobs: BlobStore,
  items: readonly RewindRestore[],
): Promise<void> {
  const realRoot = await realpath(root);
  // All contents first: a blob gone missing stops the rewind before any file is touched.
  const contents = new Map<string, Buffer>();
  for (const { path, state } of items) {
    if (state?.kind !== "file") continue;
    const bytes = await blobs.read(state.sha256);
    if (bytes === undefined) throw new Error(`${path}: its kept content is missing or damaged`);
    contents.set(path, bytes);
  }
  for (const { path, state } of items) {
    const absolute = join(realRoot, ...path.split("/"));
    if (state === null) {
      await unlink(absolute).catch(() => undefined);
      continue;
    }
    await mkdir(dirname(absolute), { recursive: true });
    if (state.kind === "link") {
      await unlink(absolute).catch(() => undefined);
      await symlink(state.target, absolute);
      continue;
    }
    await writeFileAtomic(absolute, contents.get(path) as Buffer, { mode: state.executable ? 0o755 : 0o644 });
  }
}
