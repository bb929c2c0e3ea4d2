import { spawn } from "node:child_process";

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

/** What the consumer does with a candidate line: go on, or stop rg (the limit is reached). */
export type LineVerdict = "more" | "stop";

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
export function ripgrepLines(
  binary: string,
  args: readonly string[],
  options: {
    readonly cwd: string;
    readonly timeoutMs: number;
    readonly signal: AbortSignal;
    readonly onLine: (candidate: CandidateLine) => LineVerdict;
  },
): Promise<RipgrepLinesResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stopped = false;
    let timedOut = false;
    let stderr = "";
    let pending = "";
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    const handle = (record: string) => {
      if (stopped || record === "") return;
      const nul = record.indexOf("\0");
      const colon = record.indexOf(":", nul + 1);
      if (nul === -1 || colon === -1) return;
      const line = Number(record.slice(nul + 1, colon));
      const raw = record.slice(colon + 1);
      const text = OMITTED.test(raw) ? undefined : raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (options.onLine({ file: record.slice(0, nul), line, text }) === "stop") {
        stopped = true;
        kill();
      }
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (stopped) return;
      // Look for newlines in the new chunk only; a long pending line is never rescanned.
      let newline = chunk.indexOf("\n");
      if (newline === -1) {
        pending += chunk;
        return;
      }
      handle(pending + chunk.slice(0, newline));
      let start = newline + 1;
      newline = chunk.indexOf("\n", start);
      while (newline !== -1 && !stopped) {
        handle(chunk.slice(start, newline));
        start = newline + 1;
        newline = chunk.indexOf("\n", start);
      }
      pending = stopped ? "" : chunk.slice(start);
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < MAX_STDERR) stderr += chunk.slice(0, MAX_STDERR - stderr.length);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = () => kill();
    options.signal.addEventListener("abort", onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
    };
    child.on("error", (error) => {
      settle();
      reject(error);
    });
    child.on("close", (code) => {
      settle();
      if (!stopped && !timedOut && pending !== "") handle(pending);
      if (options.signal.aborted) {
        reject(options.signal.reason);
        return;
      }
      resolve({ stopped, timedOut, exitCode: code, stderr });
    });
  });
}
