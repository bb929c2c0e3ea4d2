import type { ModelError, ModelEvent, Usage } from "@bridle/core";
import { type ClassifiedError, classifyError } from "./errors.js";
import { type RetryPolicy, retryDelay, sleep } from "./retry.js";

/**
 * One request in flight: the provider's raw events and a reader that turns each into model events.
 * Reading is synchronous and pushes onto `out`, so a long stream costs one async step per raw event.
 */
export interface StreamAttempt<Raw> {
  readonly events: AsyncIterable<Raw>;
  /** Appends the model events `raw` produces to `out`; a `done` or `error` among them ends the turn. */
  read(raw: Raw, out: ModelEvent[]): void;
  /** The terminal event for a stream that ended without saying so in an event (Chat Completions). */
  end?(): ModelEvent | undefined;
  /** Usage known so far, reported with a failure: a stream cut off mid-answer was still billed. */
  usage?(): Usage | undefined;
}

/** How long a stream may go on after its terminal event before it is cut off. */
const drainGraceMs = 1000;

export interface RetryingStreamOptions<Raw> {
  readonly signal: AbortSignal;
  readonly policy: RetryPolicy;
  /** Sends the request; may throw (the error is classified). */
  readonly attempt: (signal: AbortSignal, attempt: number) => Promise<StreamAttempt<Raw>>;
  readonly classify?: (error: unknown, signal: AbortSignal) => ClassifiedError;
  /**
   * Longest wait for the next raw event (or the response) before the attempt is abandoned as a `timeout`
   * (retryable while nothing reached the caller). A stalled connection otherwise waits forever.
   */
  readonly idleTimeoutMs?: number;
  /**
   * What must be ready before an attempt is sent and the idle clock starts (an SDK imported on first use):
   * that wait is this process's, not the provider's silence, and on a loaded machine it can take seconds.
   */
  readonly prepare?: () => Promise<unknown>;
}

/**
 * Runs attempts until one ends the turn, keeping the Model contract: never throws, ends with exactly one
 * `done` or `error`, stops at once on abort. Each retry is announced with a `retry` event before its wait. A failure is retried only while nothing has reached the
 * caller yet (a retry after deltas would show them twice) and only when the policy allows it.
 */
export async function* retryingStream<Raw>(
  options: RetryingStreamOptions<Raw>,
): AsyncGenerator<ModelEvent, void, undefined> {
  const { signal, policy } = options;
  const classify = options.classify ?? classifyError;
  const out: ModelEvent[] = [];
  for (let retry = 0; ; retry++) {
    const watchdog = new IdleWatchdog(signal, options.idleTimeoutMs);
    let emitted = false;
    let failure: ClassifiedError | undefined;
    let done: ModelEvent | undefined;
    let attempt: StreamAttempt<Raw> | undefined;
    try {
      if (signal.aborted) {
        yield abortedEvent();
        return;
      }
      if (options.prepare) await options.prepare();
      watchdog.arm();
      attempt = await options.attempt(watchdog.signal, retry);
      for await (const raw of attempt.events) {
        if (watchdog.signal.aborted) break;
        // Past the terminal event the rest is drained, not read: a stream that ends on its own leaves its
        // connection to be reused, where breaking off would close it.
        if (done || failure) continue;
        // The clock stops while the caller consumes events: only the provider's silence counts.
        watchdog.pause();
        out.length = 0;
        attempt.read(raw, out);
        for (const event of out) {
          if (event.type === "error") failure = { ...event.error };
          else if (event.type === "done") done = event;
          else {
            emitted = true;
            yield event;
            continue;
          }
          watchdog.drain(drainGraceMs);
          break;
        }
        if (!done && !failure) watchdog.arm();
      }
      if (!done && !failure && !watchdog.signal.aborted) done = attempt.end?.();
      if (signal.aborted) {
        yield abortedEvent(attempt.usage?.());
        return;
      }
      if (done) {
        yield done;
        return;
      }
      if (!failure && watchdog.expired) failure = watchdog.failure();
      failure ??= {
        code: "bad_response",
        message: "the provider's stream ended before the turn was complete",
        retryable: false,
      };
    } catch (error) {
      // A turn already complete stands, whatever happened to the connection while it drained.
      if (done && !signal.aborted) {
        yield done;
        return;
      }
      failure ??= watchdog.expired ? watchdog.failure() : classify(error, signal);
    } finally {
      watchdog.dispose();
    }
    const usage = attempt?.usage?.();
    if (failure.code === "aborted" || signal.aborted) {
      yield abortedEvent(usage);
      return;
    }
    if (!emitted && failure.retryable) {
      const delay = retryDelay(policy, retry, failure.retryAfterMs);
      if (delay !== undefined) {
        // Said before the wait, so a person watching knows why nothing arrives (and for how long).
        yield {
          type: "retry",
          retry: {
            attempt: retry + 2,
            maxAttempts: policy.maxRetries + 1,
            delayMs: Math.round(delay),
            error: publicError(failure, 1),
          },
        };
        try {
          await sleep(delay, signal);
        } catch {
          yield abortedEvent();
          return;
        }
        continue;
      }
    }
    yield { type: "error", error: publicError(failure, retry + 1), ...(usage ? { usage } : {}) };
    return;
  }
}

/**
 * An attempt's own abort signal: the caller's, plus an idle clock the provider's events keep resetting.
 * Resetting only records a time; one timer checks it, so a long stream does not churn timers per event.
 */
class IdleWatchdog {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number | undefined;
  readonly #onAbort: () => void;
  readonly #outer: AbortSignal;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #last = 0;
  #paused = false;
  expired = false;

  constructor(outer: AbortSignal, timeoutMs: number | undefined) {
    this.#outer = outer;
    this.#timeoutMs = timeoutMs;
    this.#onAbort = () => this.#controller.abort(outer.reason);
    if (outer.aborted) this.#onAbort();
    else outer.addEventListener("abort", this.#onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Restarts the clock: the provider just answered. */
  arm(): void {
    if (this.#timeoutMs === undefined) return;
    this.#last = performance.now();
    this.#paused = false;
    if (this.#timer === undefined) this.#schedule(this.#timeoutMs);
  }

  /** The turn is complete: the rest of the stream gets `ms` to end before the attempt is cut off. */
  drain(ms: number): void {
    this.#paused = true;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#controller.abort(new Error("drained")), ms);
  }

  /** Stops the clock while the caller handles events. */
  pause(): void {
    this.#paused = true;
  }

  #schedule(ms: number): void {
    this.#timer = setTimeout(() => this.#check(), ms);
  }

  #check(): void {
    const timeout = this.#timeoutMs ?? 0;
    const idle = this.#paused ? 0 : performance.now() - this.#last;
    if (idle >= timeout) {
      this.#timer = undefined;
      this.expired = true;
      this.#controller.abort(new Error("stream idle timeout"));
      return;
    }
    this.#schedule(this.#paused ? timeout : timeout - idle);
  }

  failure(): ClassifiedError {
    return {
      code: "timeout",
      message: `the provider sent nothing for ${this.#timeoutMs} ms`,
      retryable: true,
    };
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#outer.removeEventListener("abort", this.#onAbort);
  }
}

function publicError(failure: ClassifiedError, attempts: number): ModelError {
  const message = attempts > 1 ? `${failure.message} (gave up after ${attempts} attempts)` : failure.message;
  return {
    code: failure.code,
    message,
    retryable: failure.retryable,
    ...(failure.status === undefined ? {} : { status: failure.status }),
  };
}

function abortedEvent(usage?: Usage): ModelEvent {
  const error: ModelError = { code: "aborted", message: "the request was aborted", retryable: false };
  return usage ? { type: "error", error, usage } : { type: "error", error };
}
