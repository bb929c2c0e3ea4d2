// Which provider a run talks to, settled before anything is built, so a missing key or a malformed base
// URL is one clear line rather than an SDK error or five retries. The rules read the descriptors only:
// their key and base-URL variables, their default models and the model names that belong to them.
import type { ProviderDescriptor } from "@bridle/provider-kit";
import { CodingAgentError } from "./errors.js";
import { allProviders, PROVIDER_NAMES, providerNamed } from "./providers.js";
import type { CodingAgentSettings } from "./settings.js";

type Chosen = Pick<CodingAgentSettings, "provider" | "model" | "baseUrl">;

export interface ProviderChoiceOptions {
  /** Whether the person named the provider (a flag): then it is never changed for them. */
  readonly providerGiven: boolean;
  readonly env?: NodeJS.ProcessEnv;
  /** Descriptors beyond the built-in ones. */
  readonly extra?: readonly ProviderDescriptor[];
}

/** An OpenAI-compatible server (Ollama, vLLM, a proxy serving any model) is reached through this one. */
const COMPATIBLE = "openai-chat";

/**
 * With no provider named, the model's name and the keys decide: a model name that belongs to another
 * provider (`claude-*`) goes there whatever the base URL, and a machine holding only one provider's key
 * runs on that provider (the default would otherwise fail for want of a key); a model chosen for the
 * default provider is never swapped for a guess.
 */
export async function settleProvider<S extends Chosen>(
  settings: S,
  options: ProviderChoiceOptions,
): Promise<S> {
  const env = options.env ?? process.env;
  const has = (name: string | undefined) => name !== undefined && Boolean(env[name]?.trim());
  // Loading a descriptor loads its package (and an SDK): the common paths read one; the default
  // provider's model-name check and the failure and fallback paths read them all.
  let every: Promise<ProviderDescriptor[]> | undefined;
  const all = () => {
    every ??= allProviders(options.extra);
    return every;
  };
  const named = async (name: string) => {
    // The same precedence as allProviders: a built-in name is the built-in descriptor.
    const found = PROVIDER_NAMES.includes(name)
      ? await providerNamed(name)
      : options.extra?.find((descriptor) => descriptor.name === name);
    if (!found) {
      const providers = await all();
      throw new CodingAgentError(
        "invalid_settings",
        `no provider named "${name}" (known: ${providers.map((p) => p.name).join(", ")})`,
      );
    }
    return found;
  };
  const isDefault = !options.providerGiven && settings.provider === PROVIDER_NAMES[0];
  const owner = isDefault
    ? (await all()).find((p) => p.name !== settings.provider && p.modelPattern?.test(settings.model))
    : undefined;
  const chosen: S = owner ? { ...settings, provider: owner.name } : settings;
  const descriptor = await named(chosen.provider);
  checkBaseUrl(chosen, descriptor, env);
  const hasKey = (p: ProviderDescriptor) => p.keyVariables.some(has);
  const keyName = descriptor.keyVariables[0] ?? "an API key";
  const flag = `--provider ${descriptor.name}`;
  // Providers whose client finds its own key are never guessed: only a named one is used.
  const keyed = async () =>
    (await all()).filter((p) => p.name !== descriptor.name && p.keyNeeded !== "client" && hasKey(p));
  if (descriptor.keyNeeded === "always") {
    if (hasKey(descriptor)) return chosen;
    if (owner) {
      const compatible = (await all()).some((p) => p.name === COMPATIBLE)
        ? ` (an OpenAI-compatible server for it: --provider ${COMPATIBLE})`
        : "";
      throw invalid(
        `model ${chosen.model} talks ${descriptor.label} and needs ${keyName}, which is not set${compatible}`,
      );
    }
    const other = (await keyed())[0];
    if (other)
      throw invalid(
        `${flag} needs ${keyName}, which is not set; ${other.keyVariables.find(has)} is: pass --provider ${other.name}`,
      );
    // Named by the person, or sent to a base URL of their choosing: that provider's key is what is missing.
    throw options.providerGiven || chosen.baseUrl
      ? invalid(`${flag} needs ${keyName}, which is not set`)
      : noKey(await all());
  }
  // The client finds its own credentials: a missing one is its error, said when the model is made.
  if (descriptor.keyNeeded === "client") return chosen;
  // A base URL names a server that may take any key (Ollama, vLLM) or reads its own.
  if (chosen.baseUrl || has(descriptor.baseUrlVariable) || hasKey(descriptor)) return chosen;
  const others = await keyed();
  const other = others.find((p) => p.keyNeeded === "always") ?? others[0];
  if (!other) throw noKey(await all());
  if (!options.providerGiven && chosen.model === descriptor.defaultModel)
    return { ...chosen, provider: other.name, model: other.defaultModel };
  throw invalid(
    `provider ${descriptor.name} needs ${keyName}, which is not set; ${other.keyVariables.find(has)} is: pass --provider ${other.name}`,
  );
}

function checkBaseUrl(settings: Chosen, descriptor: ProviderDescriptor, env: NodeJS.ProcessEnv): void {
  const variable = descriptor.baseUrlVariable;
  const value = settings.baseUrl ?? (variable ? env[variable]?.trim() : undefined);
  if (!value || isHttpUrl(value)) return;
  const where = settings.baseUrl ? "--base-url" : variable;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? "" : " (write it with its scheme: http://…)";
  throw invalid(`${where} ${value}: not an http(s) URL${scheme}`);
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

function noKey(providers: readonly ProviderDescriptor[]): CodingAgentError {
  const keys = [
    ...new Set(providers.filter((p) => p.keyNeeded !== "client").flatMap((p) => p.keyVariables.slice(0, 1))),
  ];
  const listed = keys.length > 1 ? `${keys.slice(0, -1).join(", ")} or ${keys.at(-1)}` : (keys[0] ?? "a key");
  return invalid(
    `no API key: set ${listed} (a local OpenAI-compatible server: --provider ${COMPATIBLE} --base-url URL); bridle demo needs none`,
  );
}

function invalid(message: string): CodingAgentError {
  return new CodingAgentError("invalid_settings", message);
}
