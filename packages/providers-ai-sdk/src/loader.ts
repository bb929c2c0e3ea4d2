import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { BridleError } from "@bridle/core";

/** Where an AI SDK provider package is looked for, in order: the folder the command runs in, then Bridle's own. */
export function resolvePackage(name: string, cwd: string = process.cwd()): string {
  const places = [join(cwd, "package.json"), import.meta.url];
  for (const place of places) {
    try {
      return createRequire(place).resolve(name);
    } catch {
      // Not installed there; the next place may have it.
    }
  }
  throw new BridleError(
    "invalid_config",
    `the AI SDK provider package ${name} is not installed in ${cwd} or beside Bridle: install it (npm install ${name})`,
  );
}

/** Settings every AI SDK provider factory takes; `name` is the one `createOpenAICompatible` needs. */
export interface FactorySettings {
  readonly name: string;
  readonly baseURL?: string;
  readonly apiKey?: string;
}

type Factory = (settings: FactorySettings) => unknown;

/**
 * Loads the package at `path` and makes `modelId` with its provider factory: the exported `create…`
 * function named for the package (`createOpenAICompatible` in `@ai-sdk/openai-compatible`), or its only
 * one. The model must speak the specification this adapter speaks (v4).
 */
export async function loadLanguageModel(
  packageName: string,
  path: string,
  modelId: string,
  settings: Omit<FactorySettings, "name">,
): Promise<LanguageModelV4> {
  const exports = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const factory = factoryOf(packageName, exports);
  const provider = factory({ name: baseName(packageName), ...settings });
  const make =
    typeof provider === "object" && provider !== null && "languageModel" in provider
      ? (provider as { languageModel: (id: string) => unknown }).languageModel.bind(provider)
      : typeof provider === "function"
        ? (provider as (id: string) => unknown)
        : undefined;
  if (!make) throw invalid(`${packageName}'s provider factory did not return a provider`);
  const model = make(modelId) as Partial<LanguageModelV4> | undefined;
  const version = model?.specificationVersion;
  if (version !== "v4" || typeof model?.doStream !== "function") {
    throw invalid(
      `${packageName} made a language model of specification ${String(version)}; Bridle's AI SDK adapter speaks v4 (install a current version of ${packageName})`,
    );
  }
  return model as LanguageModelV4;
}

function factoryOf(packageName: string, exports: Record<string, unknown>): Factory {
  const factories = Object.entries(exports).filter(
    (entry): entry is [string, Factory] => /^create[A-Z]/.test(entry[0]) && typeof entry[1] === "function",
  );
  const wanted = squash(baseName(packageName));
  const named = factories.find(([key]) => squash(key.slice("create".length)) === wanted);
  const chosen = named ?? (factories.length === 1 ? factories[0] : undefined);
  if (!chosen) {
    const listed = factories.map(([key]) => key).join(", ") || "none";
    throw invalid(
      `cannot tell which export of ${packageName} makes its provider (create… functions: ${listed})`,
    );
  }
  return chosen[1];
}

/** `@ai-sdk/openai-compatible` → `openai-compatible`. */
function baseName(packageName: string): string {
  return packageName.split("/").at(-1) ?? packageName;
}

function squash(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, "");
}

function invalid(message: string): BridleError {
  return new BridleError("invalid_config", message);
}
