import { type LineVerdict, readChildLines } from "@bridle/core/node";

export interface RipgrepLineQuery {
  /** A regular expression (ripgrep's syntax) or, with `fixed`, a literal. */
  readonly pattern: string;
  readonly fixed: boolean;
  readonly ignoreCase: boolean;
  /** Only files whose path matches this glob, when searching a folder. */
  readonly glob?: string;
  /** Lines longer than this many bytes come back as `oversized`, without their text. */
  readonly maxLineBytes: number;
  /** Path rg should search, relative to cwd; undefined searches cwd. */
  readonly target?: string;
}

/**
 * The rg argument list: plain `path NUL line:text` records in path order (deterministic, so a search can
 * be continued), no user config, hidden files searched but .git skipped, .gitignore honoured even outside
 * a repository, lines over the limit omitted by rg itself so a 2 GB line never reaches this process.
 */
export function ripgrepLineArgs(query: RipgrepLineQuery): string[] {
  const args = [
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--glob",
    "!.git",
    "--sort",
    "path",
    "--null",
    "--with-filename",
    "--line-number",
    "--no-heading",
    "--color",
    "never",
    "--max-columns",
    String(query.maxLineBytes),
  ];
  if (query.glob !== undefined) args.push("--glob", query.glob);
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.fixed) args.push("--fixed-strings");
  args.push("--regexp", query.pattern, "--");
  if (query.target !== undefined) args.push(query.target);
  return args;
}

export interface CandidateLine {
  readonly file: string;
  readonly line: number;
  /** The line's text, or undefined when it was longer than maxLineBytes. */
  readonly text: string | undefined;
}

export interface RipgrepLinesResult {
  readonly stopped: boolean;
  readonly timedOut: boolean;
  readonly exitCode: number | null;
  readonly stderr: string;
}

// rg 14 writes "[Omitted long matching line]"; older versions "[Omitted long line with N matches]".
const OMITTED = /^\[Omitted long (?:matching )?line(?: with \d+ match(?:es)?)?\]$/;
const MAX_STDERR = 4_000;

/** Run rg and hand each candidate line to `onLine` in order, until rg ends or `onLine` says stop. */
export async function ripgrepLines(
  binary: string,
  args: readonly string[],
  options: {
    readonly cwd: string;
    readonly timeoutMs: number;
    readonly signal: AbortSignal;
    readonly onLine: (candidate: CandidateLine) => LineVerdict;
  },
): Promise<RipgrepLinesResult> {
  return readChildLines(binary, args, {
    cwd: options.cwd,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    maxStderr: MAX_STDERR,
    onLine: (record) => {
      const nul = record.indexOf("\0");
      const colon = record.indexOf(":", nul + 1);
      if (record === "" || nul === -1 || colon === -1) return "more";
      const line = Number(record.slice(nul + 1, colon));
      const raw = record.slice(colon + 1);
      const text = OMITTED.test(raw) ? undefined : raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      return options.onLine({ file: record.slice(0, nul), line, text });
    },
  });
}
