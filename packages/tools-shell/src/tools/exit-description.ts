import type { Workspace } from "@bridle/core";
import type { CapturedOutput } from "../output/capture.js";
import { type CommandExit, exitCodeOf } from "../runners/runner.js";

/** One command's outcome with its output captured (head and tail, spill files). */
export interface CapturedRun {
  readonly exit: CommandExit;
  readonly stdout: CapturedOutput;
  readonly stderr: CapturedOutput;
  /** The output passed the spill limit and the command was stopped. */
  readonly runaway: boolean;
}

/** How a command ended, in the words every tool that runs one gives the model. */
export interface ExitDescription {
  /** The exit status; 128 + the signal number when a signal ended it, as shells report it. */
  readonly exit_code: number;
  /** Exit 0, not timed out, not stopped for runaway output. */
  readonly success: boolean;
  readonly timed_out: boolean;
  readonly timeout_kind?: "soft" | "hard";
  /** Why it ended as it did, where its full output is, and what the runner had to say: one line each. */
  readonly notes: string[];
}

export interface ExitContext {
  readonly timeoutMs: number;
  readonly workspace: Workspace;
  /** Bytes per stream a spill file holds at most (the runaway limit). */
  readonly spillLimit: number;
  /** The sandbox's memory limit, which a SIGKILL most likely came from. */
  readonly memoryMb: number | undefined;
}

export function describeExit(run: CapturedRun, context: ExitContext): ExitDescription {
  const { exit, stdout, stderr, runaway } = run;
  const { timeoutMs, spillLimit, memoryMb } = context;
  const notes: string[] = [];
  const exitCode = exitCodeOf(exit);
  if (exit.timedOut === "soft")
    notes.push(`timed out after ${timeoutMs} ms: SIGTERM was sent to its process group and it stopped`);
  if (exit.timedOut === "hard")
    notes.push(`timed out after ${timeoutMs} ms and ignored SIGTERM: its process tree was killed (SIGKILL)`);
  if (exit.stoppedBy === "abort") notes.push("the run was aborted: the command's process tree was killed");
  if (runaway)
    notes.push(
      `output passed ${spillLimit} bytes: the command was stopped; the saved file holds the first ${spillLimit} bytes`,
    );
  else if (exitCode === 137 && !exit.stoppedBy && memoryMb !== undefined) {
    notes.push(`killed (SIGKILL), most likely by the memory limit of ${memoryMb} MiB`);
  } else if (exit.signal && !exit.timedOut && !exit.stoppedBy) notes.push(`ended by signal ${exit.signal}`);
  notes.push(...(exit.notes ?? []));
  for (const [name, captured] of [
    ["stdout", stdout],
    ["stderr", stderr],
  ] as const) {
    if (captured.truncated && captured.spillPath) {
      notes.push(
        `${name} was ${captured.totalBytes} bytes; its head and tail are shown, all of it is in ${context.workspace.display(captured.spillPath)}`,
      );
    }
  }
  const timedOut = exit.timedOut !== false;
  return {
    exit_code: exitCode,
    success: exitCode === 0 && !timedOut && !runaway,
    timed_out: timedOut,
    ...(exit.timedOut ? { timeout_kind: exit.timedOut } : {}),
    notes,
  };
}
