import { spawn } from "node:child_process";

/** What one hook command did. */
export interface CommandOutcome {
  /** The exit code; undefined when it was killed or could not start. */
  readonly exitCode: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  /** Why it could not start (a missing shell, a bad cwd). */
  readonly spawnError?: string;
}

/** Each stream is kept up to this many bytes; the rest is dropped and said so. */
export const OUTPUT_LIMIT_BYTES = 64 * 1024;

export interface RunCommandOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * Runs `command` with bash (as Claude Code does), `input` on stdin. It runs in its own process group so
 * a timeout or an abort kills what it started too, not only the shell.
 */
export function runHookCommand(
  command: string,
  input: string,
  options: RunCommandOptions,
): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdout = new BoundedText();
    const stderr = new BoundedText();
    let timedOut = false;
    let spawnError: string | undefined;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => killGroup();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.on("data", (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.add(chunk));
    // A script that never reads stdin closes the pipe early: that is not a failure of the hook.
    child.stdin.on("error", () => {});
    child.stdin.end(input);
    child.on("error", (error) => {
      spawnError = error.message;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode: timedOut || spawnError !== undefined || code === null ? undefined : code,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        ...(spawnError ? { spawnError } : {}),
      });
    });
  });
}

class BoundedText {
  readonly #chunks: Buffer[] = [];
  #size = 0;
  #dropped = 0;

  add(chunk: Buffer): void {
    const room = OUTPUT_LIMIT_BYTES - this.#size;
    if (room <= 0) {
      this.#dropped += chunk.length;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.#chunks.push(kept);
    this.#size += kept.length;
    this.#dropped += chunk.length - kept.length;
  }

  text(): string {
    const text = Buffer.concat(this.#chunks).toString("utf8");
    return this.#dropped > 0 ? `${text}\n[${this.#dropped} more bytes dropped]` : text;
  }
}
