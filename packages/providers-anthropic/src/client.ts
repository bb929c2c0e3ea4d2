import Anthropic from "@anthropic-ai/sdk";
import { extendPrices, type PriceTable, type RetryPolicy, retryPolicy } from "@bridle/provider-kit";

/** How the Anthropic adapter reaches its server. Every field is optional. */
export interface AnthropicConnectionOptions {
  /** Defaults to ANTHROPIC_API_KEY. */
  readonly apiKey?: string;
  /** Defaults to ANTHROPIC_BASE_URL, then https://api.anthropic.com. */
  readonly baseURL?: string;
  /** Extra headers on every request (an `anthropic-beta` flag, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-attempt timeout in milliseconds (the SDK's default is 10 minutes). */
  readonly timeoutMs?: number;
  /** Bridle's retry policy; the SDK's own retries are turned off in its favour. */
  readonly retry?: Partial<RetryPolicy>;
  /** Prices added to (or overriding) the built-in table, for `cost()`. */
  readonly prices?: PriceTable;
  /** A client you configured yourself (its retries should be 0); the options above are then ignored. */
  readonly client?: Anthropic;
}

export function connect(options: AnthropicConnectionOptions): { client: Anthropic; retry: RetryPolicy } {
  const retry = retryPolicy(options.retry);
  if (options.client) return { client: options.client, retry };
  const apiKey = options.apiKey ?? nonEmpty(process.env.ANTHROPIC_API_KEY);
  const baseURL = options.baseURL ?? nonEmpty(process.env.ANTHROPIC_BASE_URL);
  if (!apiKey) throw new Error("no Anthropic API key: pass apiKey or set ANTHROPIC_API_KEY");
  const client = new Anthropic({
    apiKey,
    ...(baseURL ? { baseURL } : {}),
    maxRetries: 0,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(options.headers ? { defaultHeaders: { ...options.headers } } : {}),
    logLevel: "off",
  });
  return { client, retry };
}

export function priceTable(base: PriceTable, options: AnthropicConnectionOptions): PriceTable {
  return extendPrices(base, options.prices);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() ? value : undefined;
}
