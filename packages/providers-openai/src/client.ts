import { extendPrices, type PriceTable, type RetryPolicy, retryPolicy } from "@bridle/provider-kit";
import { OpenAI } from "openai";

/** How an OpenAI adapter reaches its server. Every field is optional. */
export interface OpenAIConnectionOptions {
  /** Defaults to OPENAI_API_KEY. */
  readonly apiKey?: string;
  /** Defaults to OPENAI_BASE_URL, then the SDK's default (https://api.openai.com/v1). */
  readonly baseURL?: string;
  /** Extra headers on every request (OpenRouter's HTTP-Referer, an Azure key, …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-attempt timeout in milliseconds (the SDK's default is 10 minutes). */
  readonly timeoutMs?: number;
  /** Bridle's retry policy; the SDK's own retries are turned off in its favour. */
  readonly retry?: Partial<RetryPolicy>;
  /** Prices added to (or overriding) the built-in table, for `cost()`. */
  readonly prices?: PriceTable;
  /** A client you configured yourself (its retries should be 0); the options above are then ignored. */
  readonly client?: OpenAI;
}

export interface ResolvedConnection {
  readonly client: OpenAI;
  readonly retry: RetryPolicy;
}

export function connect(
  options: OpenAIConnectionOptions,
  fallback: { readonly requireKey: boolean },
): ResolvedConnection {
  const retry = retryPolicy(options.retry);
  if (options.client) return { client: options.client, retry };
  const baseURL = options.baseURL ?? nonEmpty(process.env.OPENAI_BASE_URL);
  const apiKey = options.apiKey ?? nonEmpty(process.env.OPENAI_API_KEY);
  if (!apiKey && fallback.requireKey && !baseURL) {
    throw new Error("no OpenAI API key: pass apiKey or set OPENAI_API_KEY");
  }
  const client = new OpenAI({
    // Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) accept any key, but the SDK wants one.
    apiKey: apiKey ?? "not-needed",
    ...(baseURL ? { baseURL } : {}),
    maxRetries: 0,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(options.headers ? { defaultHeaders: { ...options.headers } } : {}),
    logLevel: "off",
  });
  return { client, retry };
}

export function priceTable(base: PriceTable, options: OpenAIConnectionOptions): PriceTable {
  return extendPrices(base, options.prices);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() ? value : undefined;
}
