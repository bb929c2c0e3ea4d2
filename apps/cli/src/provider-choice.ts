import type { CliFlags } from "./args.js";
import { CliError } from "./cli-error.js";
import { DEFAULT_MODELS, type Settings } from "./config.js";

/**
 * Settles the provider before anything is built, so a missing key is one clear line rather than an SDK
 * error. With no `--provider` and no base URL, a machine holding only ANTHROPIC_API_KEY runs on Anthropic
 * (the default would otherwise be OpenAI with no key); when the model was set for OpenAI it says to pass
 * `--provider anthropic` instead of guessing a model.
 */
export function settleProvider(settings: Settings, flags: CliFlags, env: NodeJS.ProcessEnv): Settings {
  const has = (name: string) => Boolean(env[name]?.trim());
  const openai = settings.provider === "openai" || settings.provider === "openai-chat";
  // A base URL names a server that may take any key (Ollama, vLLM) or reads its own.
  if (settings.baseUrl || has(openai ? "OPENAI_BASE_URL" : "ANTHROPIC_BASE_URL")) return settings;
  if (openai && !has("OPENAI_API_KEY")) {
    if (!has("ANTHROPIC_API_KEY")) throw noKey();
    if (flags.provider === undefined && settings.model === DEFAULT_MODELS[settings.provider]) {
      return { ...settings, provider: "anthropic", model: DEFAULT_MODELS.anthropic };
    }
    throw new CliError(
      `provider ${settings.provider} needs OPENAI_API_KEY, which is not set; ANTHROPIC_API_KEY is: pass --provider anthropic`,
      2,
    );
  }
  if (settings.provider === "anthropic" && !has("ANTHROPIC_API_KEY")) {
    throw has("OPENAI_API_KEY")
      ? new CliError(
          "--provider anthropic needs ANTHROPIC_API_KEY, which is not set; OPENAI_API_KEY is: pass --provider openai",
          2,
        )
      : noKey();
  }
  return settings;
}

function noKey(): CliError {
  return new CliError(
    "no API key: set OPENAI_API_KEY or ANTHROPIC_API_KEY (a local OpenAI-compatible server: --provider openai-chat --base-url URL); bridle demo needs none",
    2,
  );
}
