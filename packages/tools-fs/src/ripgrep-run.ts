import { type LineVerdict, readChildLines } from "@bridle/core/node";

export interface GrepLine {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

export interface RipgrepQuery {
  readonly pattern: string;
  /** Path to search, as rg should receive it (relative to cwd); undefined searches cwd. */
  readonly target?: string;
  readonly include?: string;
  readonly context: number;
  readonly maxFileBytes: number;
}

export interface RipgrepResult {
  readonly matches: GrepLine[];
  readonly context: GrepLine[];
  /** Matches were left unread because max_matches was reached. */
  readonly truncated: boolean;
  readonly timedOut: boolean;
  readonly exitCode: number | null;
  readonly stderr: string;
}

/**
 * The exact rg argument list grep runs: JSON output, no user config, hidden files searched but .git
 * skipped, .gitignore honoured even outside a git repository, binaries skipped (rg's default), files
 * over the size limit skipped.
 */
export function ripgrepArgs(query: RipgrepQuery): string[] {
  const args = [
    "--json",
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--glob",
    "!.git",
    "--max-filesize",
    String(query.maxFileBytes),
  ];
  if (query.include !== undefined) args.push("--glob", query.include);
  if (query.context > 0) args.push("--context", String(query.context));
  args.push("--regexp", query.pattern, "--");
  if (query.target !== undefined) args.push(query.target);
  return args;
}

interface RgText {
  readonly text?: string;
  readonly bytes?: string;
}

interface RgMessage {
  readonly type: string;
  readonly data: { readonly path?: RgText; readonly lines?: RgText; readonly line_number?: number };
}

function textOf(value: RgText | undefined): string {
  if (!value) return "";
  if (value.text !== undefined) return value.text;
  return value.bytes === undefined ? "" : Buffer.from(value.bytes, "base64").toString("utf8");
}

const MAX_STDERR = 4_000;

/**
 * Run rg and collect up to `maxMatches` accepted matches (plus their trailing context). `accept` drops
 * files the caller must not show. rg is killed as soon as a match past the limit appears, on timeout
 * and on abort.
 */
export async function runRipgrep(
  binary: string,
  args: readonly string[],
  options: {
    readonly cwd: string;
    readonly maxMatches: number;
    readonly maxLineChars: number;
    readonly timeoutMs: number;
    readonly signal: AbortSignal;
    readonly accept: (file: string) => boolean;
  },
): Promise<RipgrepResult> {
  const matches: GrepLine[] = [];
  const context: GrepLine[] = [];
  let full = false;
  let lastFile = "";
  const cut = (text: string) => {
    const line = text.replace(/\r?\n$/, "");
    return line.length > options.maxLineChars ? `${line.slice(0, options.maxLineChars)} …` : line;
  };
  const handle = (raw: string): LineVerdict => {
    if (raw === "") return "more";
    // Only matches and context carry lines; the rest is cheaper to recognise than to parse.
    if (!raw.startsWith('{"type":"match"') && !raw.startsWith('{"type":"context"')) {
      if (full && raw.startsWith('{"type":"begin"')) lastFile = "";
      return "more";
    }
    let message: RgMessage;
    try {
      message = JSON.parse(raw) as RgMessage;
    } catch {
      return "more";
    }
    const file = textOf(message.data.path);
    if (!options.accept(file)) return "more";
    const entry = { file, line: message.data.line_number ?? 0, text: cut(textOf(message.data.lines)) };
    if (message.type === "match") {
      // A match past the limit: the result is truncated, and rg need not go on.
      if (full) return "stop";
      matches.push(entry);
      if (matches.length >= options.maxMatches) {
        full = true;
        lastFile = file;
      }
    } else if (!full || file === lastFile) {
      context.push(entry);
    }
    return "more";
  };
  const run = await readChildLines(binary, args, {
    cwd: options.cwd,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    maxStderr: MAX_STDERR,
    onLine: handle,
  });
  return {
    matches,
    context,
    truncated: run.stopped,
    timedOut: run.timedOut,
    exitCode: run.exitCode,
    stderr: run.stderr,
  };
}
