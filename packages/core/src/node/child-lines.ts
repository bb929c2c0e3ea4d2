import { spawn } from "node:child_process";

/** What the consumer says after a line: go on, or stop the child (it has what it needs). */
export type LineVerdict = "more" | "stop";

export interface ChildLinesOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** The child is killed after this long, and the result says `timedOut`. None by default. */
  readonly timeoutMs?: number;
  /** Aborting kills the child, and the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Characters of stderr kept (the rest is read and dropped, so the child never blocks on it). Default 4,000. */
  readonly maxStderr?: number;
  /** Each stdout line, in order, without its `\n`; a last line with no newline counts too. */
  readonly onLine: (line: string) => LineVerdict | undefined;
}

export interface ChildLinesResult {
  /** `onLine` asked to stop, and the child was killed. */
  readonly stopped: boolean;
  readonly timedOut: boolean;
  readonly exitCode: number | null;
  readonly stderr: string;
}

const MAX_STDERR = 4_000;

/**
 * Runs a program (no shell) and hands its stdout to `onLine` a line at a time as it arrives, however the
 * pipe splits it into chunks. Each chunk is scanned for newlines once, so one very long line (a minified
 * file's match) costs its length, not its length squared. The child is killed with SIGKILL when `onLine`
 * says stop, on timeout and on abort. Rejects when the program cannot be started (ENOENT…).
 */
export function readChildLines(
  command: string,
  args: readonly string[],
  options: ChildLinesOptions,
): Promise<ChildLinesResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: options.env }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const maxStderr = options.maxStderr ?? MAX_STDERR;
    let timedOut = false;
    let stderr = "";
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    };
    const lines = lineSplitter((line) => {
      const verdict = options.onLine(line);
      if (verdict === "stop") kill();
      return verdict;
    });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => lines.push(chunk));
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < maxStderr) stderr += chunk.slice(0, maxStderr - stderr.length);
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            kill();
          }, options.timeoutMs);
    const onAbort = () => kill();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    child.on("error", (error) => {
      settle();
      reject(error);
    });
    child.on("close", (code) => {
      settle();
      if (!timedOut) lines.end();
      if (options.signal?.aborted) {
        reject(options.signal.reason);
        return;
      }
      resolve({ stopped: lines.stopped, timedOut, exitCode: code, stderr });
    });
  });
}

export interface LineSplitter {
  /** Text as it arrives; each complete line goes to `onLine`. */
  push(chunk: string): void;
  /** The text ended: a last line with no newline goes to `onLine` too. */
  end(): void;
  /** `onLine` said stop; nothing more is handed over. */
  readonly stopped: boolean;
}

/**
 * Lines out of text that arrives in chunks split anywhere (a pipe's reads). Each chunk is scanned for
 * newlines once, so one very long line costs its length, not its length squared.
 */
export function lineSplitter(onLine: (line: string) => LineVerdict | undefined): LineSplitter {
  let pending = "";
  let stopped = false;
  const deliver = (line: string) => {
    if (!stopped && onLine(line) === "stop") stopped = true;
  };
  return {
    push(chunk) {
      if (stopped) return;
      let newline = chunk.indexOf("\n");
      if (newline === -1) {
        pending += chunk;
        return;
      }
      deliver(pending + chunk.slice(0, newline));
      let start = newline + 1;
      newline = chunk.indexOf("\n", start);
      while (newline !== -1 && !stopped) {
        deliver(chunk.slice(start, newline));
        start = newline + 1;
        newline = chunk.indexOf("\n", start);
      }
      pending = stopped ? "" : chunk.slice(start);
    },
    end() {
      if (pending !== "") deliver(pending);
      pending = "";
    },
    get stopped() {
      return stopped;
    },
  };
}
