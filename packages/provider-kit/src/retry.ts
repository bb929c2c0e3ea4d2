/**
 * How an adapter retries a request that failed before any output reached the caller. Rate limits (429),
 * server errors (5xx, 529) and network failures are retried with exponential backoff and full jitter; a
 * Retry-After from the server replaces the computed delay. Input errors (other 4xx) are never retried.
 */
export interface RetryPolicy {
  /** Retries after the first attempt (default 4). */
  readonly maxRetries: number;
  /** Delay before the first retry, doubled for each one after (default 500 ms). */
  readonly initialDelayMs: number;
  /** Cap on a computed delay (default 30 s). */
  readonly maxDelayMs: number;
  /** Longest Retry-After honoured; a server asking for more ends the request with its error (default 60 s). */
  readonly maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = Object.freeze({
  maxRetries: 4,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
});

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...defaultRetryPolicy, ...overrides };
  for (const [key, value] of Object.entries(policy)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`retry.${key} must be a number >= 0`);
  }
  return policy;
}

/**
 * The wait the server asked for, in milliseconds: `retry-after-ms` (OpenAI), then `retry-after` as seconds
 * or an HTTP date. Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: HeaderSource | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headerValue(headers, "retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headerValue(headers, "retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number.parseFloat(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Headers as the SDKs expose them (fetch `Headers`) or as a plain record. */
export type HeaderSource =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | undefined>>;

/** A header by lower-case name, from fetch `Headers` or a plain record. */
export function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (typeof headers.get === "function")
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | undefined>>;
  for (const [key, value] of Object.entries(record)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/**
 * The delay before retry number `retry` (0 for the first retry), or undefined when the policy says stop.
 * `serverDelayMs` is the Retry-After the server sent, if any.
 */
export function retryDelay(
  policy: RetryPolicy,
  retry: number,
  serverDelayMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (retry >= policy.maxRetries) return undefined;
  if (serverDelayMs !== undefined) return serverDelayMs > policy.maxRetryAfterMs ? undefined : serverDelayMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  // Full jitter spreads clients that failed together, so they do not all come back at the same instant.
  return ceiling / 2 + random() * (ceiling / 2);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
