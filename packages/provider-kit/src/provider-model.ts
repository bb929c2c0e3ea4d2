import type { Model, ModelEvent, ModelRequest, Usage } from "@bridle/core";
import { costOf, extendPrices, type PriceTable, priceOf } from "./pricing.js";
import { type RetryPolicy, retryPolicy } from "./retry.js";
import { retryingStream, type StreamAttempt } from "./stream-runner.js";

/** Connection settings every adapter takes. Every field is optional. */
export interface ProviderConnectionOptions {
  /** Defaults to the provider's standard environment variable. */
  readonly apiKey?: string;
  /** Defaults to the provider's standard environment variable, then its public endpoint. */
  readonly baseURL?: string;
  /** Extra headers on every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-attempt timeout in milliseconds (the SDKs' default is 10 minutes). */
  readonly timeoutMs?: number;
  /** Bridle's retry policy; the SDK's own retries are turned off in its favour. */
  readonly retry?: Partial<RetryPolicy>;
  /** Prices added to (or overriding) the adapter's built-in table, for `cost()`. */
  readonly prices?: PriceTable;
  /**
   * Longest silence (no response, no stream event) before an attempt is abandoned as a retryable
   * `timeout` (default 120 000 ms). It catches connections that stall without closing.
   */
  readonly idleTimeoutMs?: number;
}

/**
 * What the adapters share: identity, the price table and `cost()`, and `stream()` running the adapter's
 * single attempt under the retry policy with the Model contract kept (never throws, one terminal event).
 */
export abstract class ProviderModel<Raw> implements Model {
  readonly provider: string;
  readonly model: string;
  readonly prices: PriceTable;
  readonly retry: RetryPolicy;
  readonly idleTimeoutMs: number;

  protected constructor(
    identity: { readonly provider: string; readonly model: string },
    builtInPrices: PriceTable,
    options: ProviderConnectionOptions,
  ) {
    this.provider = identity.provider;
    this.model = identity.model;
    this.prices = extendPrices(builtInPrices, options.prices);
    this.retry = retryPolicy(options.retry);
    this.idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
  }

  /** What `usage` cost in US dollars, or undefined when the price table has no entry for this model. */
  cost(usage: Usage): number | undefined {
    const price = priceOf(this.prices, this.model);
    return price ? costOf(usage, price) : undefined;
  }

  stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    return retryingStream({
      signal: request.signal,
      policy: this.retry,
      idleTimeoutMs: this.idleTimeoutMs,
      attempt: (signal) => this.attempt(request, signal),
    });
  }

  /** Sends one request and returns its raw events with their reader; may throw. */
  protected abstract attempt(request: ModelRequest, signal: AbortSignal): Promise<StreamAttempt<Raw>>;
}

/** An environment variable's value, unless it is unset or blank. */
export function envValue(name: string): string | undefined {
  const value = process.env[name];
  return value?.trim() ? value : undefined;
}
