import { createHash } from "node:crypto";
import { realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, isAbsolute, join } from "node:path";

/** The user's data folder: `$XDG_DATA_HOME` when absolute, else `~/.local/share`. */
export function userDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_DATA_HOME && isAbsolute(env.XDG_DATA_HOME)
    ? env.XDG_DATA_HOME
    : join(homedir(), ".local", "share");
}

/**
 * The folder this workspace's own data lives in, under the user's data folder: its memory and its spilled
 * tool output. Keyed by the workspace's real path (a readable name and a hash), so two checkouts never
 * share notes and a symlinked path reaches the same ones.
 */
export async function workspaceDataDir(dataDir: string, workspace: string): Promise<string> {
  const real = await workspaceKey(workspace);
  const hash = createHash("sha256").update(real).digest("hex").slice(0, 16);
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9_.-]/g, "_")
      .slice(0, 40) || "root";
  return join(dataDir, "bridle", "workspaces", `${name}-${hash}`);
}

/** The workspace's real path: what its sessions are tagged with (workspace-sessions.ts). */
export async function workspaceKey(workspace: string): Promise<string> {
  return realpath(workspace).catch(() => workspace);
}
