import type { ToolCallEnv, ToolOutput } from "@bridle/core";
import type { Agents } from "../agents.js";
import type { AgentTask } from "../task.js";

/** What the model reads about a task: JSON, with the child's final answer once it has one. */
export interface TaskReport {
  readonly task_id: string;
  readonly agent_key: string;
  readonly status: AgentTask["status"];
  readonly stop_reason?: string;
  readonly result?: string;
  readonly error?: string;
  readonly elapsed_ms: number;
  readonly note?: string;
}

export function taskReport(task: AgentTask, note?: string): TaskReport {
  const result = task.result;
  return {
    task_id: task.id,
    agent_key: task.agentKey,
    status: task.status,
    ...(result ? { stop_reason: result.stopReason } : {}),
    ...(result?.finalText ? { result: result.finalText } : {}),
    ...(result?.error && result.stopReason !== "completed" ? { error: result.error.message } : {}),
    elapsed_ms: (task.endedAt ?? Date.now()) - task.startedAt,
    ...(note ? { note } : {}),
  };
}

export function taskOutput(task: AgentTask, note?: string): ToolOutput {
  const report = taskReport(task, note);
  return {
    content: JSON.stringify(report, null, 2),
    details: { ...report, runId: task.result?.runId, usage: task.result?.usage },
    isError: report.status === "failed" || report.status === "cancelled",
  };
}

/** The longest timer Node keeps (about 24.8 days): "until it ends" for a task's wait. */
const FOREVER_MS = 2 ** 31 - 1;

/**
 * Waits for a task the way agent_spawn and agent_send do: up to `timeoutSeconds` (0: not at all). If the
 * call is aborted, the child is cancelled with it; if the time runs out, the task goes on in the background.
 * A child of a run that records its steps (`childRuns`) is waited for until it ends.
 */
export async function awaitTask(
  agents: Agents,
  task: AgentTask,
  timeoutSeconds: number,
  ctx: ToolCallEnv,
): Promise<ToolOutput> {
  const onAbort = () => task.cancel("the parent call was aborted");
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    // A child of a durable run is waited for to its end: a wall-clock timeout would end the wait on one
    // execution and not on the next (replayed steps take no time), and the run's steps would differ.
    const waitMs = ctx.childRuns ? FOREVER_MS : timeoutSeconds * 1000;
    const finished = await task.wait(waitMs, ctx.signal);
    if (ctx.signal.aborted) {
      await task.done;
      return taskOutput(task);
    }
    if (!finished) {
      task.stopForwarding();
      const why =
        timeoutSeconds === 0
          ? "started in the background"
          : `still running after ${timeoutSeconds} s, now in the background`;
      return taskOutput(
        task,
        `${why}: get its result with task_output {"task_id": "${task.id}"}, or stop it with task_cancel`,
      );
    }
    task.stopForwarding();
    await agents.report(task, ctx);
    return taskOutput(task);
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
}
