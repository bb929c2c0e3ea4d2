import { type Dirent, lstatSync, readdirSync, type Stats } from "node:fs";
import { resolve } from "node:path";
import { ToolFailure } from "@bridle/core";

/** How many files and folders one scan (one command) may list before it refuses: see `TreeScanner`. */
export const DEFAULT_MAX_SCAN_ENTRIES = 200_000;

export type EntryKind = "dir" | "file" | "link";

export interface ScannedEntry {
  /** Absolute path. */
  readonly path: string;
  readonly name: string;
  readonly kind: EntryKind;
}

/**
 * Called for each folder of a tree and each entry whose name the scanner finds interesting; returns the
 * state a folder's children are visited with, or undefined to leave it unvisited. Symbolic links are
 * reported (when their name is interesting), never followed.
 */
export type Visitor<S> = (entry: ScannedEntry, state: S) => S | undefined;

interface Listing {
  readonly dev: number;
  readonly ino: number;
  readonly ctimeMs: number;
  /** The folders and the entries with an interesting name: all a visitor is shown. */
  readonly entries: readonly { readonly name: string; readonly kind: EntryKind }[];
  readonly total: number;
  /** Listed long enough after the folder's last change that an equal ctime proves no change since. */
  readonly settled: boolean;
  seen: number;
}

const EMPTY = { entries: [], total: 0 };

// File systems stamp changes with a coarse clock (a few ms; a whole second or two on some): a folder
// changed this recently before it was listed may change again under the same ctime, so it is listed again.
const SETTLE_MS = 2_000;

/**
 * Walks trees to find what the sandbox must mount over, once per command, within a bound. A folder's
 * listing is kept while its ctime and inode stay the same: creating, removing or renaming an entry
 * changes the folder's ctime, and no unprivileged process can set a ctime back (utimes moves it forward),
 * so a `.env` made by the previous command is found by the next one. Revisiting a kept tree costs one
 * lstat per folder.
 *
 * The bound counts every entry of a scan. Past it the scan fails closed: what was not listed cannot be
 * masked, and running the command anyway would show what lies there, so the command does not run
 * (a `LimitExceeded` failure naming the bound and how to raise it).
 */
export class TreeScanner {
  readonly maxEntries: number;
  readonly #interesting: (name: string) => boolean;
  readonly #whole: (folder: string) => boolean;
  readonly #listings = new Map<string, Listing>();
  #generation = 0;
  #count = 0;
  #listed = 0;

  /**
   * `interesting` picks the names a visitor is shown besides folders, judged once per listing: on a kept
   * tree a scan then costs a stat and a visit per folder, whatever the number of files. A folder
   * `whole` picks (by its absolute path) shows the visitor every entry.
   */
  constructor(options: {
    maxEntries?: number;
    interesting: (name: string) => boolean;
    whole?: (folder: string) => boolean;
  }) {
    this.maxEntries = options.maxEntries ?? DEFAULT_MAX_SCAN_ENTRIES;
    this.#interesting = options.interesting;
    this.#whole = options.whole ?? (() => false);
  }

  /**
   * Run one scan: `walk` calls `tree` for each tree; the bound applies to them together. A partial scan
   * (the check after a command, which walks only the workspace roots) keeps the listings it did not
   * visit; a whole one forgets them.
   */
  scan(
    walk: (tree: <S>(root: string, state: S, visit: Visitor<S>) => void) => void,
    options: { readonly partial?: boolean } = {},
  ): number {
    this.#generation++;
    this.#count = 0;
    this.#listed = 0;
    walk((root, state, visit) => this.#tree(root, state, visit));
    // Folders no longer visited (removed, or now under a masked path) are forgotten.
    if (!options.partial)
      for (const [path, listing] of this.#listings)
        if (listing.seen !== this.#generation) this.#listings.delete(path);
    return this.#count;
  }

  /** How many folders the last scan read (the rest answered from kept listings). */
  get listed(): number {
    return this.#listed;
  }

  #tree<S>(root: string, rootState: S, visit: Visitor<S>): void {
    const stack: { path: string; state: S }[] = [{ path: resolve(root), state: rootState }];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      const listing = this.#list(next.path);
      this.#count += listing.total;
      if (this.#count > this.maxEntries) {
        throw new ToolFailure(
          "LimitExceeded",
          `the sandbox walks the workspace before each command to mask secrets and keep .git read-only, and stopped after ${this.maxEntries} files and folders, so it cannot run commands here; run in a smaller folder, or ask the user to raise the bubblewrap runner's maxScanEntries`,
        );
      }
      for (const { name, kind } of listing.entries) {
        // Folders here are absolute and normalized: a plain concatenation is their join, for less.
        const path = next.path === "/" ? `/${name}` : `${next.path}/${name}`;
        const state = visit({ path, name, kind }, next.state);
        if (state !== undefined && kind === "dir") stack.push({ path, state });
      }
    }
  }

  #list(folder: string): Pick<Listing, "entries" | "total"> {
    let stat: Stats;
    try {
      stat = lstatSync(folder);
    } catch {
      this.#listings.delete(folder);
      return EMPTY;
    }
    const kept = this.#listings.get(folder);
    if (
      kept?.settled &&
      kept.ino === stat.ino &&
      kept.dev === stat.dev &&
      kept.ctimeMs === stat.ctimeMs &&
      stat.isDirectory()
    ) {
      kept.seen = this.#generation;
      return kept;
    }
    const listedAt = Date.now();
    this.#listed++;
    let dirents: Dirent[];
    try {
      dirents = readdirSync(folder, { withFileTypes: true });
    } catch {
      // Unreadable to the agent: unreadable inside the sandbox too (same user, no capabilities).
      this.#listings.delete(folder);
      return EMPTY;
    }
    const entries: { name: string; kind: EntryKind }[] = [];
    const whole = this.#whole(folder);
    for (const dirent of dirents) {
      const kind: EntryKind = dirent.isSymbolicLink() ? "link" : dirent.isDirectory() ? "dir" : "file";
      if (whole || kind === "dir" || this.#interesting(dirent.name))
        entries.push({ name: dirent.name, kind });
    }
    const listing: Listing = {
      dev: stat.dev,
      ino: stat.ino,
      ctimeMs: stat.ctimeMs,
      entries,
      total: dirents.length,
      settled: listedAt - stat.ctimeMs > SETTLE_MS,
      seen: this.#generation,
    };
    this.#listings.set(folder, listing);
    return listing;
  }
}
