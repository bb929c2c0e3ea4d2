import { BridleError } from "@bridle/core";
import { checkedBaseUrl, envValue, type ProviderDescriptor } from "@bridle/provider-kit";
import { loadLanguageModel, resolvePackage } from "./loader.js";
import { AISDKModel } from "./model.js";

/** `@ai-sdk/openai-compatible:qwen3` → package and model id (split at the first colon: no package name has one). */
export function parseAISDKModelName(name: string): {
  readonly packageName: string;
  readonly modelId: string;
} {
  const colon = name.indexOf(":");
  const packageName = colon < 0 ? "" : name.slice(0, colon).trim();
  const modelId = colon < 0 ? "" : name.slice(colon + 1).trim();
  if (!packageName || !modelId) {
    throw new BridleError(
      "invalid_config",
      `the ai-sdk provider's model is "<package>:<model>", such as @ai-sdk/openai:gpt-5-mini; got ${JSON.stringify(name)}`,
    );
  }
  return { packageName, modelId };
}

/**
 * Any installed AI SDK provider package, the model named `<package>:<model>`. `AI_SDK_BASE_URL` and
 * `AI_SDK_API_KEY` (or the base URL and key a front door passes) go to the package's factory as `baseURL`
 * and `apiKey`; without them the package reads its own variables (`OPENAI_API_KEY`, …) and endpoint.
 */
export const aiSdk: ProviderDescriptor = Object.freeze<ProviderDescriptor>({
  name: "ai-sdk",
  label: "AI SDK provider package",
  keyVariables: ["AI_SDK_API_KEY"],
  // The package reads its own key variable (OPENAI_API_KEY, …) when AI_SDK_API_KEY is not set.
  keyNeeded: "client",
  baseUrlVariable: "AI_SDK_BASE_URL",
  defaultModel: "@ai-sdk/openai:gpt-5-mini",
  models: Object.freeze({
    // The same figures as providers-openai's row for gpt-5-mini, under this provider's name for it.
    "@ai-sdk/openai:gpt-5-mini": Object.freeze({
      contextWindow: 400_000,
      maxOutputTokens: 128_000,
      price: Object.freeze({ input: 0.25, output: 2, cacheRead: 0.025 }),
      capabilities: Object.freeze({ images: true, reasoning: true, structuredOutput: true }),
      checked: "2026-12-07",
    }),
  }),
  create(options) {
    const env = options.env ?? process.env;
    const { packageName, modelId } = parseAISDKModelName(options.model);
    const path = resolvePackage(packageName);
    const rawBaseUrl = options.baseURL ?? envValue("AI_SDK_BASE_URL", env);
    const baseURL =
      rawBaseUrl === undefined
        ? undefined
        : checkedBaseUrl(rawBaseUrl, options.baseURL ? "the base URL" : "AI_SDK_BASE_URL");
    const apiKey = options.apiKey ?? envValue("AI_SDK_API_KEY", env);
    return new AISDKModel({
      name: options.model,
      model: () =>
        loadLanguageModel(packageName, path, modelId, {
          ...(baseURL ? { baseURL } : {}),
          ...(apiKey ? { apiKey } : {}),
        }),
      ...(options.models ? { models: { ...aiSdk.models, ...options.models } } : { models: aiSdk.models }),
      ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    });
  },
});
