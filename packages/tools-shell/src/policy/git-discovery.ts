import { existsSync, lstatSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { ClassRule } from "./examples.js";

/**
 * The repository judged is the one git would use: an empty `.git` folder is passed over, a gitfile is
 * followed, `-C` options compose, and the repository found from the real folder is the one inspected.
 */
export const REPOSITORY_RULE: ClassRule = {
  why: "the repository is discovered as git discovers it, and its config judged",
  examples: [
    // evil/inner/.git is an empty folder: git uses evil, whose config runs programs.
    ["cd evil/inner && git log -1", "block"],
    ["git -C evil/inner status", "block"],
    ["git -C src -C ../evil/inner status", "block"],
    // wt/.git is a gitfile naming evil/.git.
    ["cd wt && git status", "block"],
    ["git -C wt diff", "block"],
    // sub/.git is an empty folder inside the workspace's own (plain) repository.
    ["cd sub && git status", "allow"],
    ["git -C sub log --oneline -1", "allow"],
    ["cd up/.. && git status", "allow"],
  ],
};

/** The repository git would use, as git finds it (setup_git_directory): its git dir, common dir and top. */
export interface FoundRepository {
  readonly gitDir: string;
  /** Where objects, refs and the shared config live (`commondir` of a linked worktree). */
  readonly commonDir: string;
  readonly top: string;
}

/**
 * Where git finds the repository for a command run in the real folder `cwd`: up from it, the first
 * `.git` that is a valid git dir (a folder, or a gitfile naming one), else the first folder that is
 * itself one (bare). A `.git` folder that is not a valid git dir (an empty `sub/.git/`) is passed over,
 * as git passes over it. A gitfile naming no valid git dir stops the walk: git refuses to run there, and
 * the policy, failing closed, returns it as found so its files are read (and fail to parse).
 */
export function discoverRepository(cwd: string): FoundRepository | undefined {
  let dir = cwd;
  for (let hops = 0; hops < 256; hops++) {
    const dotGit = join(dir, ".git");
    const stats = statSync(dotGit, { throwIfNoEntry: false });
    if (stats?.isDirectory()) {
      if (isGitDirectory(dotGit)) return found(dotGit, dir);
    } else if (stats?.isFile()) {
      const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"));
      return found(pointer ? resolve(dir, pointer[1] as string) : dotGit, dir);
    }
    if (isGitDirectory(dir)) return found(dir, dir);
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

function found(gitDir: string, top: string): FoundRepository {
  return { gitDir, commonDir: commonDirOf(gitDir), top };
}

function commonDirOf(gitDir: string): string {
  const file = join(gitDir, "commondir");
  return existsSync(file) ? resolve(gitDir, readFileSync(file, "utf8").trim()) : gitDir;
}

/** git's is_git_directory: HEAD a valid head ref, objects and refs folders (in the common dir). */
export function isGitDirectory(dir: string): boolean {
  try {
    const common = commonDirOf(dir);
    if (!isFolder(join(common, "objects")) || !isFolder(join(common, "refs"))) return false;
    const head = join(dir, "HEAD");
    const stats = lstatSync(head, { throwIfNoEntry: false });
    if (!stats) return false;
    if (stats.isSymbolicLink()) return readlinkSync(head).startsWith("refs/");
    const text = readFileSync(head, "utf8");
    return /^ref:\s*refs\//.test(text) || /^[0-9a-f]{40}(?:[0-9a-f]{24})?\s*$/.test(text);
  } catch {
    return false;
  }
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
