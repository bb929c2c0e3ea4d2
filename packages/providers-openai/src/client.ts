import { BridleError } from "@bridle/core";
import { checkedBaseUrl, envValue, type ProviderConnectionOptions } from "@bridle/provider-kit";
import type { OpenAI } from "openai";

/** How an OpenAI adapter reaches its server: OPENAI_API_KEY and OPENAI_BASE_URL are the defaults. */
export interface OpenAIConnectionOptions extends ProviderConnectionOptions {
  /** A client you configured yourself (its maxRetries should be 0); the connection options are then ignored. */
  readonly client?: OpenAI;
}

/**
 * Checks the connection options at once (a missing key is an error when the model is made) and returns
 * the client as a promise: the SDK is imported when the model is made, not when this package is, so a
 * command that only reads the descriptors never loads it, and its loading overlaps the run's set-up.
 */
export function openaiClient(options: OpenAIConnectionOptions): Promise<OpenAI> {
  if (options.client) return Promise.resolve(options.client);
  const given = options.baseURL ?? envValue("OPENAI_BASE_URL", options.env);
  const baseURL =
    given === undefined ? undefined : checkedBaseUrl(given, options.baseURL ? "baseURL" : "OPENAI_BASE_URL");
  const apiKey = options.apiKey ?? envValue("OPENAI_API_KEY", options.env);
  if (!apiKey && !baseURL)
    throw new BridleError("invalid_config", "no OpenAI API key: pass apiKey or set OPENAI_API_KEY");
  const client = import("openai").then(
    ({ OpenAI }) =>
      new OpenAI({
        // Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) accept any key, but the SDK wants one.
        apiKey: apiKey ?? "not-needed",
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
