import { readdirSync, readFileSync } from "node:fs";
import { type AnyTool, ToolFailure, type ToolOutput, Workspace } from "@bridle/core";
import { expect } from "vitest";
import type { BashDetails, BashResult, ShellProgress, ShellTools } from "../src/index.js";

export interface Called {
  readonly output: ToolOutput;
  readonly result: BashResult;
  readonly details: BashDetails;
  readonly progress: ShellProgress[];
}

let calls = 0;

/** Call a tool the way the harness does: validated arguments, a context with a signal and progress. */
export async function call(
  tool: AnyTool,
  args: Record<string, unknown>,
  dir: string,
  options: { signal?: AbortSignal; runId?: string } = {},
): Promise<Called> {
  const progress: ShellProgress[] = [];
  const parsed = tool.inputSchema.parse(args);
  const output = await tool.execute(parsed, {
    signal: options.signal ?? new AbortController().signal,
    workspace: new Workspace(dir),
    runId: options.runId ?? "run-test",
    toolCallId: `call_${++calls}`,
    progress: (data: unknown) => progress.push(data as ShellProgress),
  });
  const text = typeof output.content === "string" ? output.content : "";
  return { output, result: JSON.parse(text) as BashResult, details: output.details as BashDetails, progress };
}

/** The ToolFailure a call throws, or a failed assertion when it does not. */
export async function failure(promise: Promise<unknown>): Promise<ToolFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolFailure) return error;
    throw error;
  }
  throw new Error("expected a ToolFailure");
}

/**
 * Whether `pid` still runs. A zombie does not: a command has ended once its chain's first process has
 * exited, before whoever started it (the spawner) has collected its status.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // After the command name in parentheses, the state.
    return readFileSync(`/proc/${pid}/stat`, "latin1").replace(/^.*\) /s, "")[0] !== "Z";
  } catch {
    return false;
  }
}

/** Pids of processes whose environment holds `marker` (how tests find what a command left behind). */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").includes(marker)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

// Returns as soon as `check` holds; the limit only says when to give up on a hung wait, so it is
// generous: a loaded machine may take many seconds to reap a process.
export async function waitFor(check: () => boolean, timeoutMs = 60_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

/** Run a command that needs about 200 MB under the tools' memory limit: it must not finish. */
export async function expectMemoryLimitHolds(shell: ShellTools, dir: string): Promise<void> {
  const command = "x=$(head -c 200000000 /dev/zero | tr '\\0' a); printf %s \"$x\" | wc -c";
  const { result } = await call(shell.bash, { command, timeout_ms: 20_000 }, dir);
  expect(result.stdout).not.toContain("200000000");
  expect(result.success).toBe(false);
}
