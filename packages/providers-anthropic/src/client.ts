import Anthropic from "@anthropic-ai/sdk";
import { BridleError } from "@bridle/core";
import { checkedBaseUrl, envValue, type ProviderConnectionOptions } from "@bridle/provider-kit";

/** How the Anthropic adapter reaches its server: ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL are the defaults. */
export interface AnthropicConnectionOptions extends ProviderConnectionOptions {
  /** A client you configured yourself (its maxRetries should be 0); the connection options are then ignored. */
  readonly client?: Anthropic;
}

export function anthropicClient(options: AnthropicConnectionOptions): Anthropic {
  if (options.client) return options.client;
  const apiKey = options.apiKey ?? envValue("ANTHROPIC_API_KEY", options.env);
  const given = options.baseURL ?? envValue("ANTHROPIC_BASE_URL", options.env);
  const baseURL =
    given === undefined
      ? undefined
      : checkedBaseUrl(given, options.baseURL ? "baseURL" : "ANTHROPIC_BASE_URL");
  if (!apiKey)
    throw new BridleError("invalid_config", "no Anthropic API key: pass apiKey or set ANTHROPIC_API_KEY");
  return new Anthropic({
    apiKey,
    ...(baseURL ? { baseURL } : {}),
    maxRetries: 0,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(options.headers ? { defaultHeaders: { ...options.headers } } : {}),
    logLevel: "off",
  });
}
