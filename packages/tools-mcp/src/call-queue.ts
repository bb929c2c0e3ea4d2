import { ToolFailure } from "@bridle/core";
import { untilAborted } from "./in-flight.js";

/**
 * The calls that must not overlap, in the order they were queued: the calls of tools a server does not
 * mark read-only go one at a time, in the order the harness starts them (the model's order), because a
 * server may read, change and write back shared state per call, and two such calls at once lose one change.
 */
export class CallQueue {
  // The end of the queue.
  #last: Promise<void> = Promise.resolve();

  /** Runs `work` once every call queued before it has finished; one aborted while it waits never runs. */
  async run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    const before = this.#last;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#last = before.then(() => mine);
    try {
      await untilAborted(before, signal).catch(() => {
        throw new ToolFailure("Cancelled", "the call was aborted while waiting for an earlier call");
      });
      return await work();
    } finally {
      done();
    }
  }
}
