import type { ModelError, ModelEvent } from "@bridle/core";
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
}

export interface RetryingStreamOptions<Raw> {
  readonly signal: AbortSignal;
  readonly policy: RetryPolicy;
  /** Sends the request; may throw (the error is classified). */
  readonly attempt: (signal: AbortSignal, attempt: number) => Promise<StreamAttempt<Raw>>;
  readonly classify?: (error: unknown, signal: AbortSignal) => ClassifiedError;
}

/**
 * Runs attempts until one ends the turn, keeping the Model contract: never throws, ends with exactly one
 * `done` or `error`, stops at once on abort. A failure is retried only while nothing has reached the
 * caller yet (a retry after deltas would show them twice) and only when the policy allows it.
 */
export async function* retryingStream<Raw>(
  options: RetryingStreamOptions<Raw>,
): AsyncGenerator<ModelEvent, void, undefined> {
  const { signal, policy } = options;
  const classify = options.classify ?? classifyError;
  const out: ModelEvent[] = [];
  for (let retry = 0; ; retry++) {
    let emitted = false;
    let failure: ClassifiedError | undefined;
    let done: ModelEvent | undefined;
    try {
      if (signal.aborted) {
        yield abortedEvent();
        return;
      }
      const attempt = await options.attempt(signal, retry);
      stream: for await (const raw of attempt.events) {
        if (signal.aborted) break;
        out.length = 0;
        attempt.read(raw, out);
        for (const event of out) {
          if (event.type === "error") {
            failure = { ...event.error };
            break stream;
          }
          if (event.type === "done") {
            done = event;
            break stream;
          }
          emitted = true;
          yield event;
        }
      }
      if (!done && !failure && !signal.aborted) done = attempt.end?.();
      if (signal.aborted) {
        yield abortedEvent();
        return;
      }
      if (done) {
        yield done;
        return;
      }
      failure ??= {
        code: "bad_response",
        message: "the provider's stream ended before the turn was complete",
        retryable: false,
      };
    } catch (error) {
      failure = classify(error, signal);
    }
    if (failure.code === "aborted" || signal.aborted) {
      yield abortedEvent();
      return;
    }
    if (!emitted && failure.retryable) {
      const delay = retryDelay(policy, retry, failure.retryAfterMs);
      if (delay !== undefined) {
        try {
          await sleep(delay, signal);
        } catch {
          yield abortedEvent();
          return;
        }
        continue;
      }
    }
    yield { type: "error", error: publicError(failure, retry + 1) };
    return;
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

function abortedEvent(): ModelEvent {
  return { type: "error", error: { code: "aborted", message: "the request was aborted", retryable: false } };
}
