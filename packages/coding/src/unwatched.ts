// Folders whose files are never the agent's work as the coding overlay counts it: git's own data,
// dependencies, and the harness's data folder (spill files, checkpoints). The handoff's ignored-file scan,
// the repository snapshot and rewind's checkpoints all pass over them, by this one rule.
export const UNWATCHED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules", ".bridle"]);

/** Whether a `/`-separated relative path lies in one of those folders, at any depth. */
export function inUnwatchedDir(path: string): boolean {
  return path.split("/").some((part) => UNWATCHED_DIRS.has(part));
}
