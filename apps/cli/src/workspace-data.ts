import { createHash } from "node:crypto";
import { realpath } from "node:fs/promises";
import { basename, join } from "node:path";

/**
 * The folder this workspace's own data lives in, under the user's data folder: its memory and its spilled
 * tool output. Keyed by the workspace's real path (a readable name and a hash), so two checkouts never
 * share notes and a symlinked path reaches the same ones.
 */
export async function workspaceDataDir(dataDir: string, workspace: string): Promise<string> {
  const real = await realpath(workspace).catch(() => workspace);
  const hash = createHash("sha256").update(real).digest("hex").slice(0, 16);
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9_.-]/g, "_")
      .slice(0, 40) || "root";
  return join(dataDir, "bridle", "workspaces", `${name}-${hash}`);
}

/** The workspace's real path: what its sessions are tagged with (memory.ts). */
export async function workspaceKey(workspace: string): Promise<string> {
  return realpath(workspace).catch(() => workspace);
}
