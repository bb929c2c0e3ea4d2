/**
 * The requests a connection has on the wire. Each gets its own AbortController, linked to the signals that
 * may cancel it only while it runs: the SDK keeps its abort listener on whatever signal a request was given,
 * so handing it a long-lived signal (a run's, close()'s) would send `notifications/cancelled` for requests
 * that finished long ago when that signal fires, which the specification forbids.
 */
export class InFlight {
  readonly #controllers = new Set<AbortController>();

  get size(): number {
    return this.#controllers.size;
  }

  async run<T>(signals: readonly AbortSignal[], request: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const links: Array<() => void> = [];
    for (const signal of signals) {
      if (signal.aborted) {
        controller.abort(signal.reason);
        continue;
      }
      const forward = () => controller.abort(signal.reason);
      signal.addEventListener("abort", forward, { once: true });
      links.push(() => signal.removeEventListener("abort", forward));
    }
    this.#controllers.add(controller);
    try {
      return await request(controller.signal);
    } finally {
      this.#controllers.delete(controller);
      for (const unlink of links) unlink();
    }
  }
}

/**
 * Settles with `work`, or rejects once `signal` aborts (with its reason); the listener goes when either
 * happens. The work itself is left to whoever aborted to clean up.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  });
}

/** Waits for `work` at most `ms`; resolves either way (for cleanup that must not hold anything up). */
export async function boundedWait(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
