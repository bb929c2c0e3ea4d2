import { createHash } from "node:crypto";
import type { Dirent } from "node:fs";
import { lstat, readdir, readFile, readlink, realpath } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { diffLines, type Hunk } from "@bridle/core";
import type { BaselineFact, HistoryFact, PreexistingChange } from "./facts.js";
import { git, repositoryRoot } from "./git.js";
import { type IgnoredSnapshot, ignoredWrites, snapshotIgnored } from "./ignored-files.js";
import { commitsSince, currentHead, fileMode, modeChanges, pathsChangedBetween } from "./repo-history.js";
import { inUnwatchedDir, UNWATCHED_DIRS } from "./unwatched.js";

/** One file the agent changed: its line counts and hunks against what was there before the run. */
export interface AgentFileChange {
  readonly path: string;
  readonly change: "added" | "modified" | "deleted";
  readonly added: number;
  readonly removed: number;
  readonly hunks: readonly Hunk[];
  readonly binary: boolean;
  /** SHA-256 of the file now (null when deleted): two states with the same line counts still differ. */
  readonly sha256?: string | null;
  /**
   * Set when the user had uncommitted changes in this file: "reverted" when the agent put it back as it is
   * in HEAD (or deleted the user's new file), else "edited".
   */
  readonly userChanges?: "edited" | "reverted";
}

// Limits on what is kept in memory of the files as they were (documented in the README).
const MAX_FILE_BYTES = 1024 * 1024;
const MAX_KEPT_BYTES = 64 * 1024 * 1024;
const MAX_SNAPSHOT_FILES = 20_000;

type Content = Buffer | null;

function sha256(content: Content): string | null {
  return content === null ? null : createHash("sha256").update(content).digest("hex");
}

/** A file as a diff sees it: its bytes, a symlink's target text, null when absent (or not a file). */
async function readEntry(absolute: string): Promise<Content> {
  try {
    const info = await lstat(absolute);
    if (info.isSymbolicLink()) return Buffer.from(await readlink(absolute), "utf8");
    if (!info.isFile()) return null;
    return await readFile(absolute);
  } catch {
    return null;
  }
}

function isBinary(content: Content): boolean {
  return content?.subarray(0, 8192).includes(0) ?? false;
}

interface StatusEntry {
  readonly path: string;
  readonly states: readonly string[];
}

/** `git status --porcelain=v2 -z` entries, repository-relative. */
function parseStatus(out: Buffer): StatusEntry[] {
  const entries: StatusEntry[] = [];
  for (const record of out.toString("utf8").split("\0")) {
    if (record === "") continue;
    const kind = record[0];
    if (kind === "?") {
      entries.push({ path: record.slice(2), states: ["untracked"] });
      continue;
    }
    const fields = kind === "1" ? 8 : kind === "u" ? 10 : -1;
    if (fields < 0) continue;
    const parts = record.split(" ");
    const xy = parts[1] ?? "..";
    const states: string[] = [];
    if (kind === "u") states.push("unmerged");
    if (xy[0] !== ".") states.push("staged");
    if (xy[1] !== ".") states.push("unstaged");
    entries.push({ path: parts.slice(fields).join(" "), states });
  }
  return entries;
}

/**
 * The repository as it was when the run started, and the agent's changes against it. In a git work tree
 * the baseline is HEAD, the branch and the user's pre-existing changes (with their contents, so the
 * agent's hunks on top of a user's edit are told apart from the edit); elsewhere a content snapshot of
 * the folder, plus each file a write tool names, taken before the write.
 */
export class RepoState {
  readonly root: string;
  readonly #repoRoot: string | undefined;
  /** The workspace's path inside the repository ("" at its top), with a trailing separator. */
  readonly #prefix: string;
  readonly #head: string | undefined;
  readonly #branch: string | undefined;
  readonly #preexisting: PreexistingChange[] = [];
  /** Contents before the run, for the paths whose before is not HEAD's blob. */
  readonly #before = new Map<string, Content>();
  /** Hashes before the run, for paths whose contents were too large to keep. */
  readonly #beforeHash = new Map<string, string | null>();
  #kept = 0;
  #snapshotTruncated = false;
  /** The modes of the user's changed files at the baseline (theirs, not HEAD's, are what the agent found). */
  readonly #userModes = new Map<string, string>();
  #ignored: IgnoredSnapshot = { files: new Map(), truncated: false };

  private constructor(
    root: string,
    repoRoot: string | undefined,
    head: string | undefined,
    branch: string | undefined,
  ) {
    this.root = root;
    this.#repoRoot = repoRoot;
    const inside = repoRoot === undefined ? "" : relative(repoRoot, root);
    this.#prefix = inside === "" ? "" : `${inside.split(sep).join("/")}/`;
    this.#head = head;
    this.#branch = branch;
  }

  get isGit(): boolean {
    return this.#repoRoot !== undefined;
  }

  /** Takes the baseline of the workspace folder `root`. */
  static async capture(root: string): Promise<RepoState> {
    const real = await realpath(root);
    const top = await repositoryRoot(real);
    if (top === undefined) {
      const state = new RepoState(real, undefined, undefined, undefined);
      await state.#snapshotFolder();
      return state;
    }
    const repoRoot = await realpath(top);
    // Read-only git commands (GIT_OPTIONAL_LOCKS=0), so they run at once: the baseline is on the path
    // to the run's first model request.
    const [head, branch] = await Promise.all([
      optional(repoRoot, ["rev-parse", "--verify", "--quiet", "HEAD"]),
      optional(repoRoot, ["symbolic-ref", "--quiet", "--short", "HEAD"]),
    ]);
    const state = new RepoState(real, repoRoot, head, branch);
    const ignored = snapshotIgnored(repoRoot, state.#prefix).catch(() => ({
      files: new Map<string, string>(),
      truncated: true,
    }));
    for (const entry of await state.#status()) {
      const content = await readEntry(join(real, entry.path));
      state.#keep(entry.path, content);
      state.#preexisting.push({ path: entry.path, states: entry.states, sha256: sha256(content) });
      const mode = await fileMode(join(real, entry.path));
      if (mode) state.#userModes.set(entry.path, mode);
    }
    state.#ignored = await ignored;
    return state;
  }

  fact(): BaselineFact {
    if (!this.isGit) {
      return {
        repository: "folder",
        preexisting: [],
        snapshot: { files: this.#before.size + this.#beforeHash.size, truncated: this.#snapshotTruncated },
      };
    }
    return {
      repository: "git",
      ...(this.#head ? { head: this.#head } : {}),
      ...(this.#branch ? { branch: this.#branch } : {}),
      preexisting: this.#preexisting,
    };
  }

  /** Paths the user had changed before the run (workspace-relative). */
  get preexistingPaths(): readonly string[] {
    return this.#preexisting.map((entry) => entry.path);
  }

  /**
   * Remember the files a write is about to touch, as they are now, unless the baseline already knows
   * them. Paths are workspace-relative; ones outside it are ignored (the write tools refuse them).
   */
  async beforeWrite(paths: readonly string[]): Promise<void> {
    for (const path of paths) {
      const normal = normalise(path);
      if (normal === undefined || this.#knows(normal)) continue;
      if (this.isGit && (await this.#headBlob(normal)) !== undefined) continue;
      this.#keep(normal, await readEntry(join(this.root, normal)));
    }
  }

  /** The agent's changes now: every file whose content differs from its baseline, with hunks. */
  async changes(extra: Iterable<string> = []): Promise<AgentFileChange[]> {
    const candidates = new Set<string>([...this.#before.keys(), ...this.#beforeHash.keys()]);
    for (const path of extra) {
      const normal = normalise(path);
      if (normal !== undefined) candidates.add(normal);
    }
    if (this.isGit) {
      for (const entry of await this.#status()) candidates.add(entry.path);
      // Files the agent committed are clean in status: what moved HEAD since the baseline names them.
      for (const path of await this.#committedPaths()) candidates.add(path);
    } else for (const path of await this.#walk()) candidates.add(path);
    const sorted = [...candidates].sort();
    // HEAD's versions in one git process: the files measured against HEAD, and the user's files.
    const preexisting = new Set(this.preexistingPaths);
    const heads = await this.#headBlobs(sorted.filter((path) => !this.#knows(path) || preexisting.has(path)));
    const out: AgentFileChange[] = [];
    for (const path of sorted) {
      const change = await this.#compare(path, heads);
      if (change) out.push(change);
    }
    return out;
  }

  /**
   * What the agent did to the repository besides file contents, against the baseline: commits (HEAD
   * moved), executable bits changed, and files written where .gitignore hides them (secret-scanned).
   * Undefined outside git.
   */
  async history(extra: Iterable<string> = []): Promise<HistoryFact | undefined> {
    const repoRoot = this.#repoRoot;
    if (repoRoot === undefined) return undefined;
    const head = await currentHead(repoRoot);
    const moved = head !== undefined && head !== this.#head;
    const { commits, total } = moved
      ? await commitsSince(repoRoot, this.#head, head)
      : { commits: [], total: 0 };
    const paths = new Set<string>([...this.#before.keys(), ...this.#beforeHash.keys()]);
    for (const path of extra) {
      const normal = normalise(path);
      if (normal !== undefined) paths.add(normal);
    }
    for (const entry of await this.#status()) paths.add(entry.path);
    for (const path of await this.#committedPaths()) paths.add(path);
    const modes = await modeChanges(repoRoot, this.#prefix, this.#head, [...paths], this.#userModes);
    const ignored = await ignoredWrites(repoRoot, this.#prefix, this.#ignored);
    return {
      ...(moved ? { head: { from: this.#head ?? null, to: head, commits, commitCount: total } } : {}),
      modes,
      ignored: ignored.writes,
      ...(ignored.truncated ? { ignoredTruncated: true } : {}),
    };
  }

  async #committedPaths(): Promise<string[]> {
    const repoRoot = this.#repoRoot as string;
    const head = await currentHead(repoRoot);
    if (head === undefined || head === this.#head) return [];
    return (await pathsChangedBetween(repoRoot, this.#prefix, this.#head, head)).filter((p) => !isSkipped(p));
  }

  async #compare(path: string, heads: ReadonlyMap<string, Buffer>): Promise<AgentFileChange | undefined> {
    const after = await readEntry(join(this.root, path));
    let before: Content;
    if (this.#before.has(path)) before = this.#before.get(path) ?? null;
    else if (this.#beforeHash.has(path)) {
      if (this.#beforeHash.get(path) === sha256(after)) return undefined;
      // Too large to have kept: counted as replaced whole.
      before = null;
    } else before = heads.get(path) ?? null;
    if (before !== null && after !== null && before.equals(after)) return undefined;
    if (before === null && after === null) return undefined;
    const change = before === null ? "added" : after === null ? "deleted" : "modified";
    const user = this.#userChanges(path, after, heads);
    const mark = user ? { userChanges: user } : {};
    const hash = { sha256: sha256(after) };
    if (isBinary(before) || isBinary(after)) {
      return { path, change, added: 0, removed: 0, hunks: [], binary: true, ...hash, ...mark };
    }
    const diff = diffLines(before?.toString("utf8") ?? "", after?.toString("utf8") ?? "");
    return {
      path,
      change,
      added: diff.added,
      removed: diff.removed,
      hunks: diff.hunks,
      binary: false,
      ...hash,
      ...mark,
    };
  }

  /** How the agent's change touched a file the user had changed before the run, if it had. */
  #userChanges(
    path: string,
    after: Content,
    heads: ReadonlyMap<string, Buffer>,
  ): "edited" | "reverted" | undefined {
    if (!this.#preexisting.some((entry) => entry.path === path)) return undefined;
    const head = heads.get(path);
    const reverted = head === undefined ? after === null : after !== null && head.equals(after);
    return reverted ? "reverted" : "edited";
  }

  #knows(path: string): boolean {
    return this.#before.has(path) || this.#beforeHash.has(path);
  }

  #keep(path: string, content: Content): void {
    const size = content?.length ?? 0;
    if (size <= MAX_FILE_BYTES && this.#kept + size <= MAX_KEPT_BYTES) {
      this.#before.set(path, content);
      this.#kept += size;
    } else this.#beforeHash.set(path, sha256(content));
  }

  async #headBlob(path: string): Promise<Buffer | undefined> {
    return (await this.#headBlobs([path])).get(path);
  }

  /** HEAD's version of each path that has one, read with one `git cat-file --batch`. */
  async #headBlobs(paths: readonly string[]): Promise<Map<string, Buffer>> {
    const found = new Map<string, Buffer>();
    // A name with a line break cannot be asked for on cat-file's line-based input: it counts as new.
    const asked = paths.filter((path) => !/[\n\r]/.test(path));
    if (!this.#head || !this.#repoRoot || asked.length === 0) return found;
    const input = asked.map((path) => `${this.#head}:${this.#prefix}${path}\n`).join("");
    const out = await git(this.#repoRoot, ["cat-file", "--batch"], input);
    let at = 0;
    for (const path of asked) {
      const end = out.indexOf(10, at);
      if (end < 0) break;
      const header = out.subarray(at, end).toString("utf8");
      at = end + 1;
      const match = /^[0-9a-f]+ (\S+) (\d+)$/.exec(header);
      if (!match) continue; // "<name> missing": not in HEAD
      const size = Number(match[2]);
      if (match[1] === "blob") found.set(path, out.subarray(at, at + size));
      at += size + 1;
    }
    return found;
  }

  async #status(): Promise<StatusEntry[]> {
    const repoRoot = this.#repoRoot as string;
    const out = await git(repoRoot, [
      "status",
      "--porcelain=v2",
      "-z",
      "--untracked-files=all",
      "--no-renames",
      "--ignore-submodules=none",
    ]);
    const entries: StatusEntry[] = [];
    for (const entry of parseStatus(out)) {
      if (!entry.path.startsWith(this.#prefix)) continue;
      const path = entry.path.slice(this.#prefix.length);
      if (isSkipped(path)) continue;
      entries.push({ path, states: entry.states });
    }
    return entries;
  }

  async #snapshotFolder(): Promise<void> {
    for (const path of await this.#walk()) this.#keep(path, await readEntry(join(this.root, path)));
  }

  /** The folder's files (workspace-relative), bounded; sets the truncation mark past the bound. */
  async #walk(): Promise<string[]> {
    const files: string[] = [];
    const pending = [""];
    while (pending.length > 0) {
      const dir = pending.pop() as string;
      let entries: Dirent[];
      try {
        entries = await readdir(join(this.root, dir), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!UNWATCHED_DIRS.has(entry.name)) pending.push(path);
        } else if (entry.isFile() || entry.isSymbolicLink()) {
          if (files.length >= MAX_SNAPSHOT_FILES) {
            this.#snapshotTruncated = true;
            return files;
          }
          files.push(path);
        }
      }
    }
    return files;
  }
}

async function optional(cwd: string, args: readonly string[]): Promise<string | undefined> {
  try {
    const out = (await git(cwd, args)).toString("utf8").trim();
    return out === "" ? undefined : out;
  } catch {
    return undefined;
  }
}

function isSkipped(path: string): boolean {
  return inUnwatchedDir(path);
}

/** A workspace-relative path in `/` form, or undefined for one that leaves the workspace. */
function normalise(path: string): string | undefined {
  const parts: string[] = [];
  for (const part of path.replaceAll("\\", "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  if (parts.length === 0 || path.startsWith("/")) return undefined;
  const normal = parts.join("/");
  return isSkipped(normal) ? undefined : normal;
}
