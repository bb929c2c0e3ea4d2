import { spawn } from "node:child_process";

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
export function runRipgrep(
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
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    const matches: GrepLine[] = [];
    const context: GrepLine[] = [];
    let truncated = false;
    let timedOut = false;
    let stderr = "";
    let pending = "";
    let full = false;
    let lastFile = "";
    const stop = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    const cut = (text: string) => {
      const line = text.replace(/\r?\n$/, "");
      return line.length > options.maxLineChars ? `${line.slice(0, options.maxLineChars)} …` : line;
    };
    const handle = (raw: string) => {
      if (raw === "" || truncated) return;
      // Only matches and context carry lines; the rest is cheaper to recognise than to parse.
      if (!raw.startsWith('{"type":"match"') && !raw.startsWith('{"type":"context"')) {
        if (full && raw.startsWith('{"type":"begin"')) lastFile = "";
        return;
      }
      let message: RgMessage;
      try {
        message = JSON.parse(raw) as RgMessage;
      } catch {
        return;
      }
      const file = textOf(message.data.path);
      if (!options.accept(file)) return;
      const entry = { file, line: message.data.line_number ?? 0, text: cut(textOf(message.data.lines)) };
      if (message.type === "match") {
        if (full) {
          truncated = true;
          stop();
          return;
        }
        matches.push(entry);
        if (matches.length >= options.maxMatches) {
          full = true;
          lastFile = file;
        }
      } else if (!full || file === lastFile) {
        context.push(entry);
      }
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      // A minified file's match line can be hundreds of kilobytes: look for the newline in the new
      // chunk only, never rescan what is already pending.
      let newline = chunk.indexOf("\n");
      if (newline === -1) {
        pending += chunk;
        return;
      }
      handle(pending + chunk.slice(0, newline));
      let start = newline + 1;
      newline = chunk.indexOf("\n", start);
      while (newline !== -1) {
        handle(chunk.slice(start, newline));
        start = newline + 1;
        newline = chunk.indexOf("\n", start);
      }
      pending = chunk.slice(start);
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk.slice(0, MAX_STDERR - stderr.length);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = () => stop();
    options.signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
      if (!truncated && !timedOut && pending !== "") handle(pending);
      if (options.signal.aborted) {
        reject(options.signal.reason);
        return;
      }
      resolve({ matches, context, truncated, timedOut, exitCode: code, stderr });
    });
  });
}
