import { FileTracker } from "./file-tracker.js";

export interface FsToolsOptions {
  /** Share one tracker between toolkits (a hashline toolkit beside this one). Default: a new one. */
  readonly tracker?: FileTracker;
  /** ripgrep binary to use; otherwise @vscode/ripgrep's, then `rg` on PATH. */
  readonly ripgrepPath?: string;
  /** Lines read_file returns when no limit is given. Default 2,000. */
  readonly readLimit?: number;
  /** Characters shown of one line by read_file and grep before it is cut. Default 2,000 (grep: 500). */
  readonly maxLineChars?: number;
  /**
   * Characters of file text one read_file call returns at most. Default 50,000: with line numbers and notes
   * a full page stays under core's spill limit (100,000), so a page of a spilled result is never spilled again.
   */
  readonly maxReadChars?: number;
  /** Files up to this size are read whole (and hashed for the read-before-write rule). Default 8 MiB. */
  readonly wholeReadBytes?: number;
  /** Largest file edit_file and write_file will rewrite. Default 64 MiB. */
  readonly maxEditBytes?: number;
  /** Entries list_dir returns at most. Default 1,000. */
  readonly maxListEntries?: number;
  /** Paths glob returns at most. Default 1,000. */
  readonly maxGlobResults?: number;
  /** grep's max_matches when the model gives none, and the most it may ask for. Default 100 and 2,000. */
  readonly grepDefaultMatches?: number;
  readonly grepMaxMatches?: number;
  /** Files larger than this are skipped by grep. Default 10 MiB. */
  readonly grepMaxFileBytes?: number;
  /** grep stops and returns what it found after this long. Default 30 s. */
  readonly grepTimeoutMs?: number;
}

export type FsSettings = Required<Omit<FsToolsOptions, "ripgrepPath">> & { readonly ripgrepPath?: string };

export function resolveSettings(options: FsToolsOptions = {}): FsSettings {
  const settings: FsSettings = {
    tracker: options.tracker ?? new FileTracker(),
    readLimit: options.readLimit ?? 2_000,
    maxLineChars: options.maxLineChars ?? 2_000,
    maxReadChars: options.maxReadChars ?? 50_000,
    wholeReadBytes: options.wholeReadBytes ?? 8 * 1024 * 1024,
    maxEditBytes: options.maxEditBytes ?? 64 * 1024 * 1024,
    maxListEntries: options.maxListEntries ?? 1_000,
    maxGlobResults: options.maxGlobResults ?? 1_000,
    grepDefaultMatches: options.grepDefaultMatches ?? 100,
    grepMaxMatches: options.grepMaxMatches ?? 2_000,
    grepMaxFileBytes: options.grepMaxFileBytes ?? 10 * 1024 * 1024,
    grepTimeoutMs: options.grepTimeoutMs ?? 30_000,
    ...(options.ripgrepPath === undefined ? {} : { ripgrepPath: options.ripgrepPath }),
  };
  for (const [key, value] of Object.entries(settings)) {
    if (typeof value === "number" && !(Number.isInteger(value) && value > 0)) {
      throw new RangeError(`createFsTools: ${key} must be a positive integer, got ${value}`);
    }
  }
  return settings;
}
