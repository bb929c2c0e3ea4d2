import type { ToolCallEnv } from "@bridle/core";
import type { Client } from "@modelcontextprotocol/client";

/** A call on the wire: its run, its tool, and the JSON-RPC id it went out with. */
export interface RunningCall {
  readonly ctx: ToolCallEnv;
  readonly tool: string;
  requestId?: string;
}

/**
 * The calls running on one connection now, so a server's log messages reach the runs that are waiting on
 * it, and a person answering the server does not time them out.
 */
export class RunningCalls {
  readonly #running = new Set<RunningCall>();
  // Told when a call ends, so an answer it was waiting for can be given up (see whileAsking).
  readonly #ended = new Set<() => void>();

  /** Runs `work` as a running call of `tool`; `call.requestId` is for the caller to set once it is known. */
  async track<T>(ctx: ToolCallEnv, tool: string, work: (call: RunningCall) => Promise<T>): Promise<T> {
    const call: RunningCall = { ctx, tool };
    this.#running.add(call);
    try {
      return await work(call);
    } finally {
      this.#running.delete(call);
      for (const check of this.#ended) check();
    }
  }

  [Symbol.iterator](): IterableIterator<RunningCall> {
    return this.#running.values();
  }

  /**
   * Runs `asking` (a person answering the server's elicitation, the model its sampling request) with the
   * running calls' timers held: the server is waiting on this side, not silent, so the wait must not time
   * its calls out. `maxCallMs` still bounds each call. The SDK re-arms a request's timer only for progress,
   * through a method it keeps to itself; without it the timers simply run.
   *
   * The signal `asking` gets aborts when the answer is moot: the server withdrew its request, the
   * connection is closing, or every call that was running when it asked has been aborted or has ended.
   */
  async whileAsking<T>(
    client: Client,
    stops: { readonly withdrawn: AbortSignal; readonly closing: AbortSignal; readonly callTimeoutMs: number },
    asking: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const { withdrawn, closing } = stops;
    const moot = new AbortController();
    const waitingOn = [...this.#running];
    const check = () => {
      const settled = waitingOn.every((call) => call.ctx.signal.aborted || !this.#running.has(call));
      if (waitingOn.length > 0 && settled) moot.abort(new Error("the calls waiting on the answer ended"));
    };
    const signals = [withdrawn, closing, ...waitingOn.map((call) => call.ctx.signal)];
    const onStop = () => (withdrawn.aborted || closing.aborted ? moot.abort() : check());
    for (const signal of signals) signal.addEventListener("abort", onStop);
    this.#ended.add(check);
    const reset = (client as unknown as { _resetTimeout?: (id: number) => boolean })._resetTimeout;
    const hold = () => {
      if (typeof reset !== "function") return;
      for (const { requestId } of this.#running) {
        if (requestId === undefined || !/^\d+$/.test(requestId)) continue;
        try {
          reset.call(client, Number(requestId));
        } catch {
          // Past maxCallMs: the call's own timer ends it.
        }
      }
    };
    const every = Math.max(50, Math.floor(stops.callTimeoutMs / 3));
    hold();
    const timer = setInterval(hold, every);
    onStop();
    try {
      return await asking(moot.signal);
    } finally {
      clearInterval(timer);
      for (const signal of signals) signal.removeEventListener("abort", onStop);
      this.#ended.delete(check);
      hold();
    }
  }
}
