import { existsSync, lstatSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";

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
 * a caller judging safety fails closed by reading the files it names (which then fail to parse).
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

/**
 * `folder` and its ancestors up to the nearest one holding a `.git` entry (folder or gitfile: either
 * marks a checkout's top, valid or not), outermost first; just `[folder]` when none does within 64 levels.
 * For what applies along the way down (instruction files, say), where a malformed `.git` still marks
 * the edge of the project; to learn which repository git itself would use, `discoverRepository`.
 */
export async function foldersFromRepositoryTop(folder: string): Promise<string[]> {
  const chain: string[] = [];
  let current = folder;
  for (let depth = 0; depth < 64; depth++) {
    chain.push(current);
    const marked = await stat(join(current, ".git")).then(
      () => true,
      () => false,
    );
    if (marked) return chain.reverse();
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return [folder];
}
