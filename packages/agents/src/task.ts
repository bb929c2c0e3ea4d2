import type { RunResult, RunStream, StopReason } from "@bridle/core";

export type TaskStatus = "running" | "completed" | "failed" | "cancelled";

let nextTask = 0;

/** One child run: a subagent working on a prompt, in the foreground or the background. */
export class AgentTask {
  readonly id: string;
  readonly agentKey: string;
  readonly prompt: string;
  /** The run whose call started it: the task is stopped (or kept) when that run ends. */
  readonly parentRunId: string;
  readonly startedAt = Date.now();
  readonly controller = new AbortController();
  readonly done: Promise<RunResult>;
  endedAt: number | undefined;
  result: RunResult | undefined;
  /** after_subagent_run has fired for this task (it fires once, in a call of the parent run). */
  reported = false;
  /** Stops carrying child events into the spawning call's progress (that call has returned). */
  stopForwarding: () => void = () => {};
  #cancelled = false;

  /** `id`: given when it must be the same on every execution of a durable run (else the next in this process). */
  constructor(
    agentKey: string,
    prompt: string,
    stream: RunStream,
    pump: Promise<void>,
    parentRunId: string,
    id?: string,
  ) {
    this.id = id ?? `task_${++nextTask}`;
    this.agentKey = agentKey;
    this.prompt = prompt;
    this.parentRunId = parentRunId;
    this.done = pump.then(
      () => stream.result,
      () => stream.result,
    );
    this.done.then(
      (result) => {
        this.result = result;
        this.endedAt = Date.now();
      },
      () => {
        this.endedAt = Date.now();
      },
    );
  }

  get status(): TaskStatus {
    if (!this.result) return "running";
    if (this.result.stopReason === "completed") return "completed";
    return this.#cancelled && this.result.stopReason === "aborted" ? "cancelled" : "failed";
  }

  get stopReason(): StopReason | undefined {
    return this.result?.stopReason;
  }

  cancel(reason = "cancelled"): boolean {
    if (this.result) return false;
    this.#cancelled = true;
    this.controller.abort(new Error(reason));
    return true;
  }

  /** Resolves true when the task ended within `ms` (or at once if it has), false on timeout or abort. */
  async wait(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this.result) return true;
    if (ms <= 0 || signal?.aborted) return false;
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    const stop = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      onAbort = () => resolve(false);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([this.done.then(() => true as const), stop]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}
