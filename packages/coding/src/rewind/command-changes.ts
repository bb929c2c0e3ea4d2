import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type FileDiff, fileDiff, isSecretPath } from "@bridle/core";
import { scanAddedLines } from "../secret-scan.js";
import { BlobStore } from "./blobs.js";
import {
  type FileEntry,
  type FileState,
  sameState,
  sharedScanner,
  type WorkspaceScanner,
} from "./entries.js";

/** Bounds on what one command's changes add to its result (documented in the README). */
export const COMMAND_CHANGE_LIMITS = {
  /** Files drawn as line diffs; the rest are counted. */
  maxDiffFiles: 20,
  /** Changed lines kept over all the drawn files together. */
  maxDiffLines: 400,
  /** Files named without their lines (binary, secret, too large); the rest are counted. */
  maxUnshown: 20,
  /** A side larger than this is named, not diffed. */
  maxTextBytes: 1024 * 1024,
} as const;

/** A file a command changed that is named but not drawn, and why. */
export interface UnshownChange {
  /** Workspace-relative, with `/`. */
  readonly path: string;
  /** "add", "update" or "delete", as a FileDiff says it. */
  readonly change: FileDiff["change"];
  /** Why its lines are not shown. */
  readonly reason: "binary" | "secret" | "too large" | "not kept" | "link" | "mode";
}

/**
 * What one command changed in the workspace: the shape of a command result's `details.changed_files`,
 * beside its `details.diffs` (core's FileDiff, as every edit tool gives them, so a front door draws both
 * alike).
 */
export interface CommandChanges {
  /** Every file the command added, changed or removed. */
  readonly count: number;
  /** Text files drawn as diffs (also in `details.diffs`): at most `maxDiffFiles`. */
  readonly diffs: readonly FileDiff[];
  /** Files named without their lines: binary ones, secrets, ones too large; at most `maxUnshown`. */
  readonly unshown: readonly UnshownChange[];
  /** The workspace had more files than a scan lists: changes past the limit were not seen. */
  readonly truncated?: boolean;
}

/** The workspace as it was before a command: each file's state (its content kept by hash). */
export interface CommandSnapshot {
  /** Each file by its workspace-relative path. */
  readonly files: ReadonlyMap<string, FileEntry>;
  /** The listing stopped at its limit (`MAX_SCANNED_FILES`). */
  readonly truncated: boolean;
}

/**
 * Watches the files a command changes: `before` lists the workspace and keeps each content not yet kept
 * (in the checkpoints' content store, so nothing is kept twice), `after` lists it again and draws what
 * changed. A second scan reads only files whose size, times or inode changed.
 */
export class CommandWatch {
  /** The workspace folder whose files are watched. */
  readonly root: string;
  readonly #blobs: BlobStore;
  readonly #scanner: WorkspaceScanner;

  private constructor(root: string, blobs: BlobStore) {
    this.root = root;
    this.#blobs = blobs;
    this.#scanner = sharedScanner(root);
  }

  /** `dataDir` is the workspace's data folder, as for `Checkpoints`; contents go in its `rewind/blobs`. */
  static async open(options: { readonly dataDir: string; readonly root: string }): Promise<CommandWatch> {
    return new CommandWatch(options.root, await BlobStore.open(join(options.dataDir, "rewind", "blobs")));
  }

  /** Call just before the command runs: lists the workspace and keeps what it holds now. */
  async before(): Promise<CommandSnapshot> {
    const scan = await this.#scanner.scan();
    for (const [path, entry] of scan.files) {
      // Most contents are kept already: asking the store only for new ones saves a promise per file.
      if (entry.kind === "file" && !this.#blobs.has(entry.sha256)) {
        await this.#blobs.keep(entry.sha256, join(this.root, path));
      }
    }
    return scan;
  }

  /** What changed since `snapshot`; undefined when nothing did. */
  async after(snapshot: CommandSnapshot): Promise<CommandChanges | undefined> {
    const scan = await this.#scanner.scan();
    const changed: { path: string; before: FileState; after: FileState }[] = [];
    for (const path of new Set([...snapshot.files.keys(), ...scan.files.keys()])) {
      const before = snapshot.files.get(path) ?? null;
      const after = scan.files.get(path) ?? null;
      if (!sameState(before, after)) changed.push({ path, before, after });
    }
    if (changed.length === 0) return undefined;
    changed.sort((a, b) => a.path.localeCompare(b.path));
    const limits = COMMAND_CHANGE_LIMITS;
    const diffs: FileDiff[] = [];
    const unshown: UnshownChange[] = [];
    let lines = 0;
    for (const { path, before, after } of changed) {
      if (unshown.length >= limits.maxUnshown && diffs.length >= limits.maxDiffFiles) break;
      const change: FileDiff["change"] = before === null ? "add" : after === null ? "delete" : "update";
      // Past the drawn files nothing more is read: a file is named only when its entry says why.
      const drawn =
        diffs.length < limits.maxDiffFiles
          ? await this.#draw(path, before, after, change, limits.maxDiffLines - lines)
          : withoutReading(path, before, after, change);
      if (drawn === undefined) continue;
      if ("reason" in drawn) {
        if (unshown.length < limits.maxUnshown) unshown.push(drawn);
      } else if (diffs.length < limits.maxDiffFiles) {
        diffs.push(drawn);
        lines += drawn.hunks.reduce((sum, hunk) => sum + hunk.added.length + hunk.removed.length, 0);
      }
    }
    return {
      count: changed.length,
      diffs,
      unshown,
      ...(scan.truncated || snapshot.truncated ? { truncated: true } : {}),
    };
  }

  async #draw(
    path: string,
    before: FileState,
    after: FileState,
    change: FileDiff["change"],
    room: number,
  ): Promise<FileDiff | UnshownChange> {
    const unshown = (reason: UnshownChange["reason"]): UnshownChange => ({ path, change, reason });
    const named = withoutReading(path, before, after, change);
    if (named) return named;
    if (before?.kind === "link" || after?.kind === "link") return unshown("link");
    const old = before === null ? Buffer.alloc(0) : await this.#blobs.read(before.sha256);
    if (old === undefined) return unshown("not kept");
    let now: Buffer;
    try {
      now = after === null ? Buffer.alloc(0) : await readFile(join(this.root, path));
    } catch {
      return unshown("not kept");
    }
    const oldText = textOf(old);
    const newText = textOf(now);
    if (oldText === undefined || newText === undefined) return unshown("binary");
    if (oldText === newText) return unshown("mode");
    const diff = fileDiff(path, oldText, newText, { change, maxLines: Math.max(0, room) });
    // Removed lines may hold a credential as much as added ones: either makes the file a name only.
    const lines = diff.hunks.flatMap((hunk) => [...hunk.added, ...hunk.removed]);
    if (scanAddedLines(path, lines, 1, { knownShapesOnly: true }).length > 0) return unshown("secret");
    return diff;
  }
}

/** Why a change is named without its lines, when its entries alone say so; undefined when they do not. */
function withoutReading(
  path: string,
  before: FileState,
  after: FileState,
  change: FileDiff["change"],
): UnshownChange | undefined {
  const unshown = (reason: UnshownChange["reason"]): UnshownChange => ({ path, change, reason });
  if (before?.kind === "link" || after?.kind === "link") return unshown("link");
  // A secret file's lines never reach a screen or a record, whatever they hold.
  if (isSecretPath(path)) return unshown("secret");
  const limit = COMMAND_CHANGE_LIMITS.maxTextBytes;
  if ((before?.size ?? 0) > limit || (after?.size ?? 0) > limit) return unshown("too large");
  return undefined;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The bytes as text, or undefined when they are not text (a NUL byte, or not UTF-8). */
function textOf(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
