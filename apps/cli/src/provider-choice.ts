import type { CliFlags } from "./args.js";
import { CliError } from "./cli-error.js";
import { DEFAULT_MODELS, type Settings } from "./config.js";

type Provider = Settings["provider"];

const BASE_URL: Record<Provider, string> = {
  openai: "OPENAI_BASE_URL",
  "openai-chat": "OPENAI_BASE_URL",
  anthropic: "ANTHROPIC_BASE_URL",
};

/**
 * Settles the provider before anything is built, so a missing key or a malformed base URL is one clear
 * line rather than an SDK error or five retries. With no `--provider`, the model's name and the keys
 * decide: a `claude-*` model talks Anthropic Messages (whatever the base URL), and a machine holding only
 * ANTHROPIC_API_KEY runs on Anthropic (the default would otherwise be OpenAI with no key); when the model
 * was set for OpenAI it says to pass `--provider anthropic` instead of guessing a model.
 */
export function settleProvider(settings: Settings, flags: CliFlags, env: NodeJS.ProcessEnv): Settings {
  const has = (name: string) => Boolean(env[name]?.trim());
  const chosen = followModelName(settings, flags);
  checkBaseUrl(chosen, env);
  if (chosen.provider === "anthropic") {
    // Anthropic's API takes no request without a key, whatever server it is sent to.
    if (has("ANTHROPIC_API_KEY")) return chosen;
    if (chosen !== settings) {
      throw new CliError(
        `model ${chosen.model} talks Anthropic Messages and needs ANTHROPIC_API_KEY, which is not set (an OpenAI-compatible server for it: --provider openai-chat)`,
        2,
      );
    }
    if (has("OPENAI_API_KEY"))
      throw new CliError(
        "--provider anthropic needs ANTHROPIC_API_KEY, which is not set; OPENAI_API_KEY is: pass --provider openai",
        2,
      );
    throw settings.baseUrl
      ? new CliError("--provider anthropic needs ANTHROPIC_API_KEY, which is not set", 2)
      : noKey();
  }
  // A base URL names a server that may take any key (Ollama, vLLM) or reads its own.
  if (chosen.baseUrl || has("OPENAI_BASE_URL") || has("OPENAI_API_KEY")) return chosen;
  if (!has("ANTHROPIC_API_KEY")) throw noKey();
  if (flags.provider === undefined && chosen.model === DEFAULT_MODELS[chosen.provider]) {
    return { ...chosen, provider: "anthropic", model: DEFAULT_MODELS.anthropic };
  }
  throw new CliError(
    `provider ${chosen.provider} needs OPENAI_API_KEY, which is not set; ANTHROPIC_API_KEY is: pass --provider anthropic`,
    2,
  );
}

/**
 * A Claude model named without a provider goes to Anthropic: sending it to OpenAI's Responses API (the
 * default) fails, or worse, reaches a proxy with the wrong key. An OpenAI-compatible proxy serving
 * Claude models is still reached with `--provider openai-chat`.
 */
function followModelName(settings: Settings, flags: CliFlags): Settings {
  if (flags.provider !== undefined || settings.provider !== "openai") return settings;
  return /^claude-/i.test(settings.model) ? { ...settings, provider: "anthropic" } : settings;
}

function checkBaseUrl(settings: Settings, env: NodeJS.ProcessEnv): void {
  const variable = BASE_URL[settings.provider];
  const value = settings.baseUrl ?? env[variable]?.trim();
  if (!value || isHttpUrl(value)) return;
  const where = settings.baseUrl ? "--base-url" : variable;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? "" : " (write it with its scheme: http://…)";
  throw new CliError(`${where} ${value}: not an http(s) URL${scheme}`, 2);
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

function noKey(): CliError {
  return new CliError(
    "no API key: set OPENAI_API_KEY or ANTHROPIC_API_KEY (a local OpenAI-compatible server: --provider openai-chat --base-url URL); bridle demo needs none",
    2,
  );
}
