import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * The agent's configuration and trust material, as data: what `protectedPathReason` applies, for checks that
 * reason about names (the shell policy's write judgement, the sandbox's mounts). Nothing the agent runs
 * writes these; the person does. The one list: every writer (the workspace's write resolution, the shell
 * policy, the sandbox) derives its cases from it.
 */
export interface ProtectedPathRules {
  /**
   * Folder names, at any depth, whose whole content is protected. `.git` (a folder or a gitfile): its
   * config, hooks, info, `commondir`, `modules`, `worktrees`, `objects/info/alternates` and `HEAD` all
   * choose what git runs or which repository it uses at the user's next command.
   */
  readonly folders: readonly string[];
  /** Basename prefixes of the agent's own settings files, at any depth (a later run may start there). */
  readonly namePrefixes: readonly string[];
  /** The agent's own folder, at any depth: protected (subagent definitions, settings) but for its data. */
  readonly agentFolder: string;
  /** Sub-folders of the agent's folder that hold what the agent writes as data (spilled output, sessions, memory notes). */
  readonly agentDataFolders: readonly string[];
}

export const PROTECTED_PATH_RULES: ProtectedPathRules = Object.freeze({
  folders: Object.freeze([".git"]),
  namePrefixes: Object.freeze(["bridle.config."]),
  agentFolder: ".bridle",
  agentDataFolders: Object.freeze(["tool-output", "shell-output", "sessions", "traces", "memory", "tmp"]),
});

/**
 * Why a path inside a workspace root is protected, or undefined when it is not. `relative` is the path
 * relative to the root (either separator); comparison ignores case, since on a case-insensitive file
 * system `.GIT/config` is `.git/config`.
 */
export function protectedPathReason(relative: string): string | undefined {
  const rules = PROTECTED_PATH_RULES;
  const parts = relative
    .split(/[\\/]+/)
    .filter((part) => part !== "" && part !== ".")
    .map((part) => part.toLowerCase());
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (rules.folders.includes(part)) {
      return "git's own folder (config, hooks, HEAD, commondir, alternates) decides what git runs and which repository it uses; commit through git_commit";
    }
    if (part === rules.agentFolder) {
      const next = parts[i + 1];
      if (next === undefined) continue; // the folder itself: creating it for its data folders is fine
      if (!rules.agentDataFolders.includes(next)) {
        return "the agent's own folder holds its settings and definitions; only its data folders are writable";
      }
    }
  }
  // Any part, not only the last: `bridle.config.ts/x` would create a folder under the settings' name.
  if (parts.some((part) => rules.namePrefixes.some((prefix) => part.startsWith(prefix)))) {
    return "it is the agent's own configuration";
  }
  return undefined;
}

/**
 * The user's Bridle config folder (`$XDG_CONFIG_HOME/bridle`, else `~/.config/bridle`): their settings,
 * the trust they gave and the approval secret. Protected wherever a workspace reaches it.
 */
export function userConfigFolder(env: NodeJS.ProcessEnv = process.env): string {
  // The XDG spec ignores a relative XDG_CONFIG_HOME; so do we.
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".config"), "bridle");
}
