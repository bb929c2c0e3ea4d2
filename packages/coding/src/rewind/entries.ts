import { createHash } from "node:crypto";
import { type Dirent, lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { git, repositoryRoot } from "../git.js";
import { inUnwatchedDir, UNWATCHED_DIRS } from "../unwatched.js";
import { REWIND_LIMITS } from "./limits.js";
import { ignoredFolders, ListingSignature, physical } from "./listing-signature.js";

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

/** A file's entry as last read, with the stat fields that must all stand for its hash to still hold. */
interface Cached {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
  readonly entry: FileEntry & { readonly kind: "file" };
}

// A scan stats each listed file synchronously: through libuv's thread pool each lstat was a round trip
// costing the main thread far more than the stat itself (0.7 s of CPU for a command's two listings of
// 10,000 files, against 0.13 s now; bench/command-watch.bench.ts). So the work goes in chunks of this many
// files, or this many bytes read, with a turn of the event loop between them: a timer or a stream of the
// same process waits for one chunk at most, not for the whole listing.
const CHUNK_FILES = 1_000;
const CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * Lists and hashes a workspace's files. A file whose size, times and inode are unchanged since the last
 * scan keeps its hash, so a scan after each turn reads only what changed.
 */
export class WorkspaceScanner {
  readonly root: string;
  readonly #cache = new Map<string, Cached>();
  /** The last listing git gave, kept while its signature holds (`ListingSignature`). */
  #kept:
    | { readonly signature: ListingSignature; readonly paths: string[]; readonly truncated: boolean }
    | undefined;
  #unsignable = false;
  #skipIgnored = false;
  #top: Promise<string | undefined> | undefined;

  constructor(root: string) {
    this.root = root;
  }

  async scan(): Promise<Scan> {
    const { paths, truncated } = await this.#list();
    const files = new Map<string, FileEntry>();
    let counted = 0;
    let bytes = 0;
    for (const path of paths) {
      const { state, read } = this.#entry(path);
      if (state) files.set(path, state);
      bytes += read;
      if (++counted >= CHUNK_FILES || bytes >= CHUNK_BYTES) {
        counted = 0;
        bytes = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    return { files, truncated };
  }

  /** One path as it is now: never follows a link, and a folder or a special file counts as nothing. */
  async entry(path: string): Promise<FileState> {
    return this.#entry(path).state;
  }

  /** The path's state, and how many bytes were read to hash it (0 when its cached hash still holds). */
  #entry(path: string): { state: FileState; read: number } {
    const absolute = join(this.root, path);
    let info: Stats;
    try {
      info = lstatSync(absolute);
    } catch {
      return NOTHING;
    }
    if (info.isSymbolicLink()) {
      const target = readlinkOrUndefined(absolute);
      return { state: target === undefined ? null : { kind: "link", target }, read: 0 };
    }
    if (!info.isFile()) return NOTHING;
    const executable = (info.mode & 0o100) !== 0;
    // Too large to keep: named by its size and times, never read, so a rewind that needs it refuses.
    if (info.size > REWIND_LIMITS.maxFileBytes) {
      const sha256 = `unkept:${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}`;
      return { state: { kind: "file", sha256, size: info.size, executable }, read: 0 };
    }
    // Compared field by field, and the entry itself kept: a scan of unchanged files builds no strings
    // and no objects per file.
    const cached = this.#cache.get(path);
    if (
      cached !== undefined &&
      cached.size === info.size &&
      cached.mtimeMs === info.mtimeMs &&
      cached.ctimeMs === info.ctimeMs &&
      cached.ino === info.ino
    ) {
      if (cached.entry.executable === executable) return { state: cached.entry, read: 0 };
      return { state: { ...cached.entry, executable }, read: 0 };
    }
    const sha256 = hashFile(absolute);
    if (sha256 === undefined) return NOTHING;
    const entry = { kind: "file", sha256, size: info.size, executable } as const;
    this.#cache.set(path, {
      size: info.size,
      mtimeMs: info.mtimeMs,
      ctimeMs: info.ctimeMs,
      ino: info.ino,
      entry,
    });
    return { state: entry, read: info.size };
  }

  /**
   * The signature of the listing about to be made. Past MAX_SIGNED_FOLDERS folders, a repository is
   * signed again without the folders its ignore rules match as a whole (a build's output, a virtual
   * environment), which git does not walk either, and from then on always so; a workspace that has too
   * many folders even then is not signed again.
   */
  async #sign(inRepository: boolean): Promise<ListingSignature | undefined> {
    const started = Date.now();
    let repository: { readonly top: string } | undefined;
    let ignored: ReadonlySet<string> | undefined;
    if (inRepository) {
      // Where git finds the repository is asked once: the signature then checks that it still would.
      this.#top ??= repositoryRoot(this.root);
      const top = await this.#top;
      if (top === undefined) return undefined;
      repository = { top };
      if (this.#skipIgnored) {
        ignored = await ignoredFolders(this.root, top);
        if (ignored === undefined) return undefined;
      }
    }
    const taken = ListingSignature.take(this.root, started, repository, ignored);
    if (taken !== "too many") return taken;
    if (inRepository && !this.#skipIgnored) {
      this.#skipIgnored = true;
      return this.#sign(inRepository);
    }
    this.#unsignable = true;
    return undefined;
  }

  /** In git, what git would list (tracked and untracked, not ignored); elsewhere a walk of the folder. */
  async #list(): Promise<{ paths: string[]; truncated: boolean }> {
    // Outside a repository (or with no git) ls-files fails, and the folder is walked: asking git first
    // whether this is a repository cost a process of its own per scan, and where no folder on the way up
    // holds a `.git` git is not asked at all.
    // Inside a sub-folder git lists only what is under it, relative to it: the workspace's own paths.
    // A command that changed no name, ignore rule or index (most of them) leaves the listing as it was:
    // it is then kept rather than asked again, while its signature provably holds.
    const kept = this.#kept;
    if (kept?.signature.holds()) return { paths: kept.paths, truncated: kept.truncated };
    this.#kept = undefined;
    const inRepository = mayBeInRepository(this.root);
    const signature = this.#unsignable ? undefined : await this.#sign(inRepository);
    const out = inRepository
      ? await git(this.root, ["ls-files", "-z", "-c", "-o", "--exclude-standard"]).catch(() => undefined)
      : undefined;
    if (out !== undefined) {
      const listed = new Set(out.toString("utf8").split("\0"));
      const all = [...listed].filter((path) => path !== "" && !inUnwatchedDir(path));
      const paths = all.slice(0, MAX_SCANNED_FILES);
      const truncated = all.length > MAX_SCANNED_FILES;
      if (signature) this.#kept = { signature, paths, truncated };
      return { paths, truncated };
    }
    const paths: string[] = [];
    const walk = (folder: string): boolean => {
      let entries: Dirent[];
      try {
        entries = readdirSync(join(this.root, folder), { withFileTypes: true });
      } catch {
        return true;
      }
      for (const entry of entries) {
        const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
        if (entry.isDirectory()) {
          if (UNWATCHED_DIRS.has(entry.name)) continue;
          if (!walk(path)) return false;
        } else {
          if (paths.length >= MAX_SCANNED_FILES) return false;
          paths.push(path);
        }
      }
      return true;
    };
    const complete = walk("");
    // A walk is kept only where no git was involved: in a repository whose git failed, git is asked again.
    if (signature && !inRepository) this.#kept = { signature, paths, truncated: !complete };
    return { paths, truncated: !complete };
  }
}

const NOTHING = { state: null, read: 0 } as const;

/**
 * False only when git cannot see a repository here: git runs with GIT_DIR and its kin removed from its
 * environment (`git.ts`), so it finds one only through a `.git` (folder, file or link) in `root` or a
 * folder above it. A bare repository's own folder has none, and ls-files fails there too.
 */
function mayBeInRepository(root: string): boolean {
  // git looks up from its working folder as the system names it, links resolved.
  const start = physical(root);
  if (start === undefined) return true; // let git say
  for (let folder = start; ; folder = dirname(folder)) {
    try {
      if (lstatSync(join(folder, ".git"), { throwIfNoEntry: false }) !== undefined) return true;
    } catch {
      return true; // not known to be absent: let git say
    }
    if (dirname(folder) === folder) return false;
  }
}

function readlinkOrUndefined(absolute: string): string | undefined {
  try {
    return readlinkSync(absolute);
  } catch {
    return undefined;
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

function hashFile(absolute: string): string | undefined {
  try {
    return sha256Of(readFileSync(absolute));
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
