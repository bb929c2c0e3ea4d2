import { ReadState } from "./read-state.js";

export interface HashlineOptions {
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
  /** Shared memory of what each run has read; the tool pair from one factory call shares one by default. */
  readonly state?: ReadState;
}

export interface ResolvedOptions {
  readonly defaultLimit: number;
  readonly maxLineChars: number;
  readonly maxOutputChars: number;
  readonly maxFileBytes: number;
  readonly contextLines: number;
  readonly state: ReadState;
}

export function resolveOptions(options: HashlineOptions = {}): ResolvedOptions {
  return {
    defaultLimit: options.defaultLimit ?? 2_000,
    maxLineChars: options.maxLineChars ?? 2_000,
    maxOutputChars: options.maxOutputChars ?? 100_000,
    maxFileBytes: options.maxFileBytes ?? 64 * 1024 * 1024,
    contextLines: options.contextLines ?? 2,
    state: options.state ?? new ReadState(),
  };
}
