import { FileTracker } from "@bridle/tools-fs";
import { ReadState } from "./read-state.js";

export interface HashlineOptions {
  /**
   * The read-before-write memory. Pass the fs toolkit's (`createFsTools().tracker`) when its write_file
   * sits beside this pair, so a hashline read lets write_file overwrite and a hashline edit counts as
   * known. Default: a new one.
   */
  readonly tracker?: FileTracker;
  /** Lines one read shows when the call gives no limit (default 2000). */
  readonly defaultLimit?: number;
  /** Longer lines are cut in what the model sees (default 2000 characters); tags still cover the whole line. */
  readonly maxLineChars?: number;
  /** A read stops early once its output reaches this many characters (default 100,000). */
  readonly maxOutputChars?: number;
  /** Files larger than this are refused (default 64 MiB). */
  readonly maxFileBytes?: number;
  /** Lines of context an edit result and a stale-tag error show around each spot (default 2). */
  readonly contextLines?: number;
}

export interface ResolvedOptions {
  readonly tracker: FileTracker;
  readonly tags: ReadState;
  readonly defaultLimit: number;
  readonly maxLineChars: number;
  readonly maxOutputChars: number;
  readonly maxFileBytes: number;
  readonly contextLines: number;
}

export function resolveOptions(options: HashlineOptions = {}): ResolvedOptions {
  return {
    tracker: options.tracker ?? new FileTracker(),
    tags: new ReadState(),
    defaultLimit: options.defaultLimit ?? 2_000,
    maxLineChars: options.maxLineChars ?? 2_000,
    maxOutputChars: options.maxOutputChars ?? 100_000,
    maxFileBytes: options.maxFileBytes ?? 64 * 1024 * 1024,
    contextLines: options.contextLines ?? 2,
  };
}
