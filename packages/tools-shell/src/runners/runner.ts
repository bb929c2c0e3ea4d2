import { constants } from "node:os";
import type { LimitEnforcement, SandboxPolicy } from "../sandbox/policy.js";

export type OutputStream = "stdout" | "stderr";

/** One command to run. The caller has already checked `cwd` against the workspace. */
export interface CommandRequest {
  readonly command: string;
  readonly cwd: string;
  /** Folders the command may write (the workspace roots). */
  readonly writableRoots: readonly string[];
  /** Soft timeout: SIGTERM to the process group, then SIGKILL after `killGraceMs`. */
  readonly timeoutMs: number;
  readonly killGraceMs?: number;
  /** Aborting kills the whole process tree. */
  readonly signal?: AbortSignal;
  onOutput?(stream: OutputStream, chunk: Uint8Array): void;
}

export interface CommandExit {
  /** null when the process ended by a signal. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** "soft": it ended after SIGTERM; "hard": it had to be killed. */
  readonly timedOut: false | "soft" | "hard";
  /** Why it was stopped, when it did not end by itself. */
  readonly stoppedBy: "timeout" | "abort" | "stop" | undefined;
  /** The shell that ran the command. */
  readonly shell: string;
  readonly durationMs: number;
  /**
   * Protected paths (core's `protectedPathReason`: a `.git`, `bridle.config.*`, `.bridle` but its data)
   * the command created, which the bubblewrap runner moved out of the workspace after it ended.
   */
  readonly quarantined?: readonly {
    /** Where the command made it. */
    readonly path: string;
    /** Where it is now; undefined when it could not be moved (it is then still at `path`). */
    readonly movedTo: string | undefined;
    /** Core's reason the path is protected. */
    readonly reason: string;
  }[];
  /** What the model must be told about the command beyond its output: one bounded line each. */
  readonly notes?: readonly string[];
}

export interface RunningCommand {
  readonly pid: number | undefined;
  readonly done: Promise<CommandExit>;
  /** SIGTERM the tree, SIGKILL it after the grace period; resolves when it is gone. */
  stop(reason?: "stop" | "abort"): Promise<CommandExit>;
}

/**
 * Runs shell commands under a SandboxPolicy. Each runner says which limits it enforces: a limit it
 * cannot enforce is reported by `enforcement`, never silently ignored.
 */
export interface CommandRunner {
  readonly name: string;
  enforcement(policy: SandboxPolicy): Promise<readonly LimitEnforcement[]>;
  start(request: CommandRequest, policy: SandboxPolicy): Promise<RunningCommand>;
}

/** The exit status as shells report it: 128 + the signal number when a signal ended the command. */
export function exitCodeOf(exit: CommandExit): number {
  if (exit.exitCode !== null) return exit.exitCode;
  const signals = constants.signals as Record<string, number | undefined>;
  return 128 + ((exit.signal ? signals[exit.signal] : undefined) ?? 0);
}
