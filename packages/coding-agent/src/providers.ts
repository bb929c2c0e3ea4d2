// The providers the coding agent knows, each one descriptor from its package: a new provider is one line
// here. Each is loaded when first asked for, so a command that makes no model never loads an SDK.
import type { CostedModel, ProviderDescriptor } from "@bridle/provider-kit";
import { CodingAgentError } from "./errors.js";
import type { CodingAgentSettings } from "./settings.js";

const BUILT_IN: Readonly<Record<string, () => Promise<ProviderDescriptor>>> = {
  openai: async () => (await import("@bridle/providers-openai")).openaiResponses,
  "openai-chat": async () => (await import("@bridle/providers-openai")).openaiChat,
  anthropic: async () => (await import("@bridle/providers-anthropic")).anthropic,
  "ai-sdk": async () => (await import("@bridle/providers-ai-sdk")).aiSdk,
};

/** The built-in providers' names, in the order they are listed ("openai" first: the default). */
export const PROVIDER_NAMES: readonly string[] = Object.keys(BUILT_IN);

/** The built-in provider named so, or one of `extra` (an embedder's own descriptors, a user's plugin). */
export async function providerNamed(
  name: string,
  extra: readonly ProviderDescriptor[] = [],
): Promise<ProviderDescriptor> {
  const added = extra.find((descriptor) => descriptor.name === name);
  if (added) return added;
  const load = Object.hasOwn(BUILT_IN, name) ? BUILT_IN[name] : undefined;
  if (!load) {
    const known = [...PROVIDER_NAMES, ...extra.map((descriptor) => descriptor.name)];
    throw new CodingAgentError(
      "invalid_settings",
      `no provider named "${name}" (known: ${known.join(", ")})`,
    );
  }
  return load();
}

/** Every provider: the built-in ones, then `extra`. */
export async function allProviders(extra: readonly ProviderDescriptor[] = []): Promise<ProviderDescriptor[]> {
  const builtIn = await Promise.all(PROVIDER_NAMES.map((name) => providerNamed(name)));
  return [...builtIn, ...extra.filter((descriptor) => !Object.hasOwn(BUILT_IN, descriptor.name))];
}

/**
 * The server the settings' model talks to, when the settings or the provider's base-URL variable name one
 * (a trace's `server.address`); undefined means the provider's own public endpoint.
 */
export async function endpointOf(
  settings: Pick<CodingAgentSettings, "provider" | "baseUrl">,
  extra: readonly ProviderDescriptor[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  if (settings.baseUrl) return settings.baseUrl;
  const variable = (await providerNamed(settings.provider, extra)).baseUrlVariable;
  return (variable && env[variable]?.trim()) || undefined;
}

/** The settings' model, made by its provider's descriptor. */
export async function createModel(
  settings: Pick<CodingAgentSettings, "provider" | "model" | "baseUrl" | "models" | "idleTimeout">,
  extra: readonly ProviderDescriptor[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<CostedModel> {
  const descriptor = await providerNamed(settings.provider, extra);
  try {
    return descriptor.create({
      model: settings.model,
      env,
      ...(settings.models ? { models: settings.models } : {}),
      ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
      ...(settings.idleTimeout ? { idleTimeoutMs: settings.idleTimeout * 1000 } : {}),
    });
  } catch (error) {
    throw new CodingAgentError(
      "setup_failed",
      `cannot set up the ${settings.provider} provider: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
