import { createHash } from "node:crypto";
import type { Dirent, Stats } from "node:fs";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { git, repositoryRoot } from "../git.js";
import { inUnwatchedDir, UNWATCHED_DIRS } from "../unwatched.js";
import { REWIND_LIMITS } from "./limits.js";

/** A file as a checkpoint keeps it: its content hash (the blob's name) or, for a link, the link's own text. */
export type FileEntry =
  | { readonly kind: "file"; readonly sha256: string; readonly size: number; readonly executable: boolean }
  | { readonly kind: "link"; readonly target: string };

/** What was at a path: an entry, or null when nothing (or a folder, which a checkpoint does not keep). */
export type FileState = FileEntry | null;

/** The workspace's files, workspace-relative with `/`, and whether the listing stopped at its limit. */
export interface Scan {
  readonly files: ReadonlyMap<string, FileEntry>;
  readonly truncated: boolean;
}

/** At most this many files are listed per scan (documented in the README). */
export const MAX_SCANNED_FILES = 50_000;

interface Cached {
  readonly key: string;
  readonly sha256: string;
}

/**
 * Lists and hashes a workspace's files. A file whose size, times and inode are unchanged since the last
 * scan keeps its hash, so a scan after each turn reads only what changed.
 */
export class WorkspaceScanner {
  readonly root: string;
  readonly #cache = new Map<string, Cached>();

  constructor(root: string) {
    this.root = root;
  }

  async scan(): Promise<Scan> {
    const { paths, truncated } = await this.#list();
    const files = new Map<string, FileEntry>();
    for (const path of paths) {
      const entry = await this.entry(path);
      if (entry) files.set(path, entry);
    }
    return { files, truncated };
  }

  /** One path as it is now: never follows a link, and a folder or a special file counts as nothing. */
  async entry(path: string): Promise<FileState> {
    const absolute = join(this.root, path);
    let info: Stats;
    try {
      info = await lstat(absolute);
    } catch {
      return null;
    }
    if (info.isSymbolicLink()) {
      const target = await readlink(absolute).catch(() => undefined);
      return target === undefined ? null : { kind: "link", target };
    }
    if (!info.isFile()) return null;
    const key = `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}`;
    const executable = (info.mode & 0o100) !== 0;
    // Too large to keep: named by its size and times, never read, so a rewind that needs it refuses.
    if (info.size > REWIND_LIMITS.maxFileBytes) {
      return { kind: "file", sha256: `unkept:${key}`, size: info.size, executable };
    }
    const cached = this.#cache.get(path);
    if (cached?.key === key) return { kind: "file", sha256: cached.sha256, size: info.size, executable };
    const sha256 = await hashFile(absolute);
    if (sha256 === undefined) return null;
    this.#cache.set(path, { key, sha256 });
    return { kind: "file", sha256, size: info.size, executable };
  }

  /** In git, what git would list (tracked and untracked, not ignored); elsewhere a walk of the folder. */
  async #list(): Promise<{ paths: string[]; truncated: boolean }> {
    if ((await repositoryRoot(this.root)) !== undefined) {
      // Inside a sub-folder git lists only what is under it, relative to it: the workspace's own paths.
      const out = await git(this.root, ["ls-files", "-z", "-c", "-o", "--exclude-standard"]).catch(
        () => undefined,
      );
      if (out !== undefined) {
        const listed = new Set(out.toString("utf8").split("\0"));
        const paths = [...listed].filter((path) => path !== "" && !inUnwatchedDir(path));
        return { paths: paths.slice(0, MAX_SCANNED_FILES), truncated: paths.length > MAX_SCANNED_FILES };
      }
    }
    const paths: string[] = [];
    const walk = async (folder: string): Promise<boolean> => {
      let entries: Dirent[];
      try {
        entries = await readdir(join(this.root, folder), { withFileTypes: true });
      } catch {
        return true;
      }
      for (const entry of entries) {
        const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
        if (entry.isDirectory()) {
          if (UNWATCHED_DIRS.has(entry.name)) continue;
          if (!(await walk(path))) return false;
        } else {
          if (paths.length >= MAX_SCANNED_FILES) return false;
          paths.push(path);
        }
      }
      return true;
    };
    const complete = await walk("");
    return { paths, truncated: !complete };
  }
}

const shared = new Map<string, WorkspaceScanner>();

/**
 * The process's one scanner of `root`: a turn's checkpoint and each command's watch then share its hashes,
 * so a file is read once after it changes, not once per listing. Safe to share: a cached hash is used only
 * while the file's size, times and inode are the ones it was read with.
 */
export function sharedScanner(root: string): WorkspaceScanner {
  let scanner = shared.get(root);
  if (!scanner) {
    scanner = new WorkspaceScanner(root);
    shared.set(root, scanner);
  }
  return scanner;
}

async function hashFile(absolute: string): Promise<string | undefined> {
  try {
    return sha256Of(await readFile(absolute));
  } catch {
    return undefined;
  }
}

export function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Whether two states are the same file as far as a rewind cares: content, kind, link text, executable bit. */
export function sameState(a: FileState, b: FileState): boolean {
  if (a === null || b === null) return a === b;
  if (a.kind === "link") return b.kind === "link" && a.target === b.target;
  return b.kind === "file" && a.sha256 === b.sha256 && a.executable === b.executable;
}
