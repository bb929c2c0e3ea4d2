import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";

/** Mounts that keep a workspace's agent configuration read-only. */
export interface AgentConfigMounts {
  /**
   * Git folders bound onto themselves (still writable): a mount point cannot be renamed or removed, so a
   * command cannot move `.git` aside and put a folder with its own config and hooks in its place.
   */
  readonly pinned: readonly string[];
  readonly readOnly: readonly string[];
}

/**
 * What in a workspace configures the agent or makes git run code, kept read-only inside the sandbox while
 * the rest of the workspace is writable:
 * - `bridle.config.*` at the root: the agent's own settings.
 * - `.git/config` and `.git/config.worktree`: `core.fsmonitor`, `core.hooksPath`, pagers, aliases,
 *   `sshCommand`, filter and diff drivers, `include.path` all run programs the next time git runs.
 * - `.git/hooks`: run by commit, merge, checkout, push.
 * - `.git/info`: `info/attributes` picks filter and diff drivers like a `.gitattributes` does, but is
 *   invisible to `git status` and to a review of the diff; `info/exclude` hides files from it. Nothing
 *   needs to write there during normal work.
 * The same for every repository git keeps under `.git/modules` (submodules).
 * Only existing paths can be mounted over: a command may still create an absent `bridle.config.*`, and
 * a symbolic link is replaceable (its target, when inside the workspace, is protected).
 */
export function agentConfigMounts(root: string): AgentConfigMounts {
  const found: string[] = [];
  const pinned: string[] = [];
  for (const name of safeList(root)) if (name.startsWith("bridle.config.")) found.push(join(root, name));
  const git = join(root, ".git");
  if (isDirectory(git)) gitDirConfig(git, found, pinned, 0);
  const readOnly: string[] = [];
  for (const path of found) {
    const real = realInside(path, root);
    if (real && !readOnly.includes(real)) readOnly.push(real);
  }
  return { pinned, readOnly };
}

// A mount follows symbolic links: mount the real file, and only when it lies in the workspace (outside,
// the sandbox does not show it writable anyway).
function realInside(path: string, root: string): string | undefined {
  try {
    const real = realpathSync(path);
    const rel = relative(realpathSync(root), real);
    return rel.startsWith("..") ? undefined : real;
  } catch {
    return undefined;
  }
}

const GIT_CODE = ["config", "config.worktree", "hooks", "info"];
const GIT_MARKS = ["HEAD", "objects", "refs", ...GIT_CODE];

function gitDirConfig(gitDir: string, out: string[], pinned: string[], depth: number): void {
  pinned.push(gitDir);
  for (const name of GIT_CODE) {
    const path = join(gitDir, name);
    if (exists(path)) out.push(path);
  }
  if (depth > 4) return;
  // .git/modules/<name>[/modules/<name>…] holds each submodule's own git folder, nested by path.
  const modules = join(gitDir, "modules");
  const walk = (folder: string, level: number) => {
    for (const name of safeList(folder)) {
      const path = join(folder, name);
      if (!isDirectory(path)) continue;
      // Any trace of a git folder counts: a command could delete HEAD so that the next one would not
      // recognise the folder, then write its config.
      if (GIT_MARKS.some((mark) => exists(join(path, mark)))) gitDirConfig(path, out, pinned, depth + 1);
      else if (level < 4) walk(path, level + 1);
    }
  };
  if (isDirectory(modules)) walk(modules, 0);
}

function safeList(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
