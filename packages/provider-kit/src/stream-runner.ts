import type { ModelError, ModelEvent } from "@bridle/core";
import { type ClassifiedError, classifyError } from "./errors.js";
import { type RetryPolicy, retryDelay, sleep } from "./retry.js";

export interface RetryingStreamOptions {
  readonly signal: AbortSignal;
  readonly policy: RetryPolicy;
  /**
   * One attempt: sends the request and yields the turn's events, ending with `done` (or an `error` for a
   * failure the stream itself reported). It may throw; the error is classified.
   */
  readonly attempt: (signal: AbortSignal, attempt: number) => AsyncIterable<ModelEvent>;
  readonly classify?: (error: unknown, signal: AbortSignal) => ClassifiedError;
}

/**
 * Runs attempts until one ends the turn, keeping the Model contract: never throws, ends with exactly one
 * `done` or `error`, stops at once on abort. A failure is retried only while nothing has reached the
 * caller yet (a retry after deltas would show them twice) and only when the policy allows it.
 */
export async function* retryingStream(
  options: RetryingStreamOptions,
): AsyncGenerator<ModelEvent, void, undefined> {
  const { signal, policy } = options;
  const classify = options.classify ?? classifyError;
  for (let retry = 0; ; retry++) {
    let emitted = false;
    let failure: ClassifiedError | undefined;
    try {
      if (signal.aborted) {
        yield abortedEvent();
        return;
      }
      for await (const event of options.attempt(signal, retry)) {
        if (signal.aborted) break;
        if (event.type === "error") {
          failure = { ...event.error };
          break;
        }
        if (event.type === "done") {
          yield event;
          return;
        }
        emitted = true;
        yield event;
      }
      if (signal.aborted) {
        yield abortedEvent();
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
