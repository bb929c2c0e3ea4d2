// The runners' probes run a program once and read its answer. node:child_process does that, and it is
// loaded anyway: execa (over a hundred modules) would cost every start its loading, before the first request.
import { execFile } from "node:child_process";

export interface ProbeRun {
  /** The program could not start, exited non-zero, was killed, or ran past its time. */
  readonly failed: boolean;
  readonly stdout: string;
  readonly stderr: string;
  /** Why it failed, in one line (empty when it did not). */
  readonly message: string;
}

/**
 * Runs `file` with `args` to its end, never rejecting. `env`, when given, is the whole environment (the
 * probes pass a minimal PATH so nothing of the agent's environment reaches the trial).
 */
export function probeRun(
  file: string,
  args: readonly string[],
  options: { readonly timeoutMs: number; readonly env?: NodeJS.ProcessEnv },
): Promise<ProbeRun> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      {
        timeout: options.timeoutMs,
        killSignal: "SIGKILL",
        encoding: "utf8",
        ...(options.env ? { env: options.env } : {}),
      },
      (error, stdout, stderr) => {
        resolve({
          failed: error !== null,
          stdout,
          stderr,
          message: error === null ? "" : failureLine(file, args, error),
        });
      },
    );
  });
}

function failureLine(
  file: string,
  args: readonly string[],
  error: Error & { code?: unknown; signal?: unknown; killed?: boolean },
): string {
  const command = [file, ...args].join(" ").slice(0, 200);
  if (typeof error.code === "string") return `${command}: ${error.code} (${error.message.slice(0, 200)})`;
  if (error.killed || typeof error.signal === "string")
    return `${command}: killed by ${String(error.signal ?? "a signal")} (timed out?)`;
  return `${command}: exited with status ${String(error.code)}`;
}
