import type { BigIntStats } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { ToolFailure, type Workspace } from "@bridle/core";
import { assertDescriptorInside, changedUnder, READ_FLAGS, raced } from "./descriptor.js";
import { resolveExistingOrSuggest } from "./paths.js";

/** A file or folder opened for reading, whose descriptor was checked to be inside the workspace. */
export interface OpenedInside {
  /** Open for reading; the caller closes it. */
  readonly handle: FileHandle;
  /** The real path of what was opened (the descriptor's, not the one asked for). */
  readonly real: string;
  /** The opened file's own stats (fstat), not the path's. */
  readonly stats: BigIntStats;
}

// A path that keeps changing under us is retried this many times before the model is told so.
const ATTEMPTS = 3;

/**
 * Open `path` for reading, the one way every reading tool does: resolve it through the workspace policy,
 * open the resolved real path without following a link in its last component (and without blocking on a
 * FIFO), then check the path the descriptor really has. A symbolic link or folder swapped between the
 * check and the open therefore cannot lead the read outside. The caller closes the handle.
 */
export async function openInside(workspace: Workspace, path: string): Promise<OpenedInside> {
  for (let attempt = 1; ; attempt++) {
    const resolved = await raced(path, resolveExistingOrSuggest(workspace, path));
    let handle: FileHandle;
    try {
      handle = await open(resolved, READ_FLAGS);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== "ELOOP" && code !== "ENOENT" && code !== "ENOTDIR") throw error;
      if (attempt < ATTEMPTS) continue;
      throw changedUnder(path);
    }
    let real: string;
    try {
      real = await assertDescriptorInside(workspace, handle, resolved, path);
    } catch (error) {
      // Replaced by a rename between the open and the check (another writer): open the new one.
      if (error instanceof ToolFailure && error.kind === "Conflict" && attempt < ATTEMPTS) continue;
      throw error;
    }
    try {
      return { handle, real, stats: await handle.stat({ bigint: true }) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
}
