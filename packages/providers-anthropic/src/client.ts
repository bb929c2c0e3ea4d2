import type Anthropic from "@anthropic-ai/sdk";
import { BridleError } from "@bridle/core";
import { checkedBaseUrl, envValue, type ProviderConnectionOptions } from "@bridle/provider-kit";

/** How the Anthropic adapter reaches its server: ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are the defaults. */
export interface AnthropicConnectionOptions extends ProviderConnectionOptions {
  /** A client you configured yourself (its maxRetries should be 0); the connection options are then ignored. */
  readonly client?: Anthropic;
}

/**
 * Checks the connection options at once (a missing key is an error when the model is made) and returns
 * the client as a promise: the SDK is imported when the model is made, not when this package is, so a
 * command that only reads the descriptors never loads it, and its loading overlaps the run's set-up.
 */
export function anthropicClient(options: AnthropicConnectionOptions): Promise<Anthropic> {
  if (options.client) return Promise.resolve(options.client);
  const apiKey = options.apiKey ?? envValue("ANTHROPIC_API_KEY", options.env);
  const given = options.baseURL ?? envValue("ANTHROPIC_BASE_URL", options.env);
  const baseURL =
    given === undefined
      ? undefined
      : checkedBaseUrl(given, options.baseURL ? "baseURL" : "ANTHROPIC_BASE_URL");
  if (!apiKey)
    throw new BridleError("invalid_config", "no Anthropic API key: pass apiKey or set ANTHROPIC_API_KEY");
  const client = import("@anthropic-ai/sdk").then(
    ({ default: Anthropic }) =>
      new Anthropic({
        apiKey,
        ...(baseURL ? { baseURL } : {}),
        maxRetries: 0,
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        ...(options.headers ? { defaultHeaders: { ...options.headers } } : {}),
        logLevel: "off",
      }),
  );
  // Settled by the first request; until then a failed import must not count as unhandled.
  client.catch(() => undefined);
  return client;
}
