import type { JSONObject, SharedV4ProviderOptions } from "@ai-sdk/provider";

/**
 * `ModelOptions.extra` as the AI SDK's `providerOptions` (`{ openai: { … }, anthropic: { … } }`): the
 * entries that are objects are sent, the names of the rest are returned so the model can say so.
 */
export function providerOptionsOf(extra: Readonly<Record<string, unknown>> | undefined): {
  readonly providerOptions: SharedV4ProviderOptions | undefined;
  readonly dropped: readonly string[];
} {
  if (!extra) return { providerOptions: undefined, dropped: [] };
  const providerOptions: SharedV4ProviderOptions = {};
  const dropped: string[] = [];
  for (const [key, value] of Object.entries(extra)) {
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      providerOptions[key] = value as JSONObject;
    else dropped.push(key);
  }
  return {
    providerOptions: Object.keys(providerOptions).length > 0 ? providerOptions : undefined,
    dropped,
  };
}
