import { type Dirent, lstatSync, readdirSync, readFileSync, realpathSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { git, isHeadText, QUIET_MS } from "../git.js";
import { UNWATCHED_DIRS } from "../unwatched.js";

/** Past this many folders a listing is never kept: checking them would cost more than git does. */
export const MAX_SIGNED_FOLDERS = 2_000;

/**
 * What `git ls-files -c -o --exclude-standard` read in a repository's top folder, pinned down by the
 * identity of everything its answer depends on, so that a listing can be kept while all of it is provably
 * unchanged and git is not asked again.
 *
 * The answer depends on the index (tracked paths), the names in each folder git walks (untracked paths),
 * the ignore rules (every `.gitignore`, `.git/info/exclude`) and the config (`.git/config` and
 * `.git/config.worktree`; git runs with no system or global config and no excludes file, `git.ts`). A
 * folder's times change whenever a name in it is added, removed or renamed; a file's change time moves on
 * any write, and no program can set it back. The folders signed are all of them except `.git` and the
 * unwatched ones (whose files a scan drops anyway), a superset of what git walks.
 *
 * A folder with no git is walked instead, and its walk depends only on its folders' names: it is signed
 * by the folders alone, and by no `.git` in it or in any folder above it (where one appears, git's answer
 * is what counts).
 *
 * The times are read before git runs, each folder before its names are read: a change after that shows
 * as a different time, never as a listing that already holds it beside a signature that does not. A
 * signature is refused (the listing is then not kept) when anything in it changed in the QUIET_MS before
 * the listing began, when `.git` is not a plain folder of the top folder (a linked work tree, a
 * submodule, a `commondir` redirect: the index may live elsewhere), when an ignore file or the index is
 * not a plain file, or when there are more than MAX_SIGNED_FOLDERS folders.
 */
export class ListingSignature {
  readonly #root: string;
  readonly #base: string;
  readonly #entries: readonly Signed[];

  private constructor(root: string, base: string, entries: readonly Signed[]) {
    this.#root = root;
    this.#base = base;
    this.#entries = entries;
  }

  /**
   * Signs `root` as it is now; `started` is the clock (ms) before this call. Undefined when refused, and
   * "too many" past MAX_SIGNED_FOLDERS folders (the walk that found that out is not worth repeating).
   * `repository` names the top folder git reported for `root` (`git rev-parse --show-toplevel`); without
   * it, a folder that is walked instead (no `.git` in it or above it) is signed: its listing depends only
   * on its folders' names, and on no `.git` appearing in it or in a folder above it.
   * `ignored` names folders (absolute) that an ignore rule matches as a whole, as git said before this
   * call: git never walks them, so neither does the signature. A rule changed since is a signed file
   * changed within the quiet window, and refuses the signature.
   */
  static take(
    root: string,
    started: number,
    repository: { readonly top: string } | undefined,
    ignored: ReadonlySet<string> = NONE,
  ): ListingSignature | "too many" | undefined {
    const entries: Signed[] = [];
    // The workspace as git sees it from inside: its path with every link resolved.
    const base = physical(root);
    if (base === undefined) return undefined;
    const recentFrom = started - QUIET_MS;
    const sign = (path: string, expect: "folder" | "file", optional: boolean): Stats | undefined | false => {
      let info: Stats | undefined;
      try {
        info = lstatSync(path, { throwIfNoEntry: false });
      } catch {
        return false;
      }
      if (info === undefined) {
        if (!optional) return false;
        entries.push({ path, identity: undefined });
        return undefined;
      }
      if (expect === "folder" ? !info.isDirectory() : !info.isFile()) return false;
      // A time in the future is as untrustworthy as a recent one.
      if (info.mtimeMs >= recentFrom || info.ctimeMs >= recentFrom) return false;
      entries.push({ path, identity: identity(info) });
      return info;
    };
    if (repository) {
      // The nearest `.git` at or above the workspace must be a plain folder at the top git named: none may
      // appear between (each folder on the way is signed without one), and every `.gitignore` on the way
      // up applies to the workspace's paths too.
      // git looks up from the folder as the system names it, links resolved (its working folder).
      let folder = base;
      for (;;) {
        const found = sign(join(folder, ".git"), "folder", true);
        if (found === false) return undefined;
        if (found !== undefined) break;
        if (folder === dirname(folder)) return undefined;
        folder = dirname(folder);
        if (sign(join(folder, ".gitignore"), "file", true) === false) return undefined;
      }
      if (folder !== repository.top) return undefined;
      const gitDir = join(folder, ".git");
      if (sign(join(gitDir, "commondir"), "file", true) !== undefined) return undefined;
      for (const name of ["index", "config", "config.worktree", join("info", "exclude")]) {
        if (sign(join(gitDir, name), "file", true) === false) return undefined;
      }
      // git takes a `.git` for a repository only when its HEAD names a branch or a commit and it has an
      // objects and a refs folder (made or removed: the `.git` folder's times move); otherwise it looks
      // further up, where nothing is signed.
      const head = join(gitDir, "HEAD");
      if (!sign(head, "file", false) || !validHead(head)) return undefined;
      for (const folder of ["objects", "refs"]) {
        if (!lstatSync(join(gitDir, folder), { throwIfNoEntry: false })?.isDirectory()) return undefined;
      }
    } else {
      for (let folder = base; ; folder = dirname(folder)) {
        if (sign(join(folder, ".git"), "file", true) !== undefined) return undefined;
        if (dirname(folder) === folder) break;
      }
    }
    const folders = [base];
    for (let next = 0; next < folders.length; next++) {
      if (folders.length > MAX_SIGNED_FOLDERS) return "too many";
      const folder = folders[next] as string;
      if (!sign(folder, "folder", false)) return undefined;
      let names: Dirent[];
      try {
        names = readdirSync(folder, { withFileTypes: true });
      } catch {
        return undefined;
      }
      for (const entry of names) {
        if (entry.isDirectory()) {
          const path = join(folder, entry.name);
          if (!UNWATCHED_DIRS.has(entry.name) && !ignored.has(path)) folders.push(path);
        } else if (
          repository !== undefined &&
          entry.name === ".gitignore" &&
          sign(join(folder, entry.name), "file", false) === false
        ) {
          return undefined;
        }
      }
    }
    return new ListingSignature(root, base, entries);
  }

  /** Whether everything signed is still as it was: then the listing made with it still holds. */
  holds(): boolean {
    // A link on the way to the workspace pointed elsewhere now: what was signed is not what git would read.
    if (physical(this.#root) !== this.#base) return false;
    for (const { path, identity: was } of this.#entries) {
      let info: Stats | undefined;
      try {
        info = lstatSync(path, { throwIfNoEntry: false });
      } catch {
        return false;
      }
      if (info === undefined || was === undefined) {
        if (info !== was) return false;
        continue;
      }
      // Field by field: a check of thousands of folders builds no string per folder.
      if (
        info.ino !== was.ino ||
        info.mtimeMs !== was.mtimeMs ||
        info.ctimeMs !== was.ctimeMs ||
        info.size !== was.size ||
        info.dev !== was.dev ||
        info.mode !== was.mode
      ) {
        return false;
      }
    }
    return true;
  }
}

const NONE: ReadonlySet<string> = new Set();

/** A signed path and what identified it then; undefined when nothing was there. */
interface Signed {
  readonly path: string;
  readonly identity: Identity | undefined;
}

type Identity = Pick<Stats, "dev" | "ino" | "size" | "mtimeMs" | "ctimeMs" | "mode">;

function identity(info: Stats): Identity {
  const { dev, ino, size, mtimeMs, ctimeMs, mode } = info;
  return { dev, ino, size, mtimeMs, ctimeMs, mode };
}

/** The folder's path with every link resolved, as a process working in it sees it; undefined if none. */
export function physical(folder: string): string | undefined {
  try {
    return realpathSync(folder);
  } catch {
    return undefined;
  }
}

/** Whether the HEAD file at `path` reads as git requires of a repository's (`isHeadText`). */
function validHead(path: string): boolean {
  try {
    return isHeadText(readFileSync(path, "utf8"));
  } catch {
    return false;
  }
}

/**
 * The folders under `root` (in the repository whose top folder is `top`) that an ignore rule matches as a
 * whole, absolute:
 * what `git status --ignored=matching` names with a trailing `/` (a folder that only holds ignored files
 * is not one of them: a file not ignored may still appear in it). Undefined when git cannot say.
 */
export async function ignoredFolders(root: string, top: string): Promise<ReadonlySet<string> | undefined> {
  const args = [
    "status",
    "--porcelain=v2",
    "-z",
    "--no-renames",
    "--ignored=matching",
    "--untracked-files=all",
  ];
  // Run in the workspace, limited to it; git names the paths from the top (status.relativePaths is off).
  const out = await git(root, [...args, "--", "."]).catch(() => undefined);
  if (out === undefined) return undefined;
  const folders = new Set<string>();
  for (const record of out.toString("utf8").split("\0")) {
    if (record.startsWith("! ") && record.endsWith("/")) folders.add(join(top, record.slice(2, -1)));
  }
  return folders;
}
