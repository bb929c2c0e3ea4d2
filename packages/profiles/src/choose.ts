import type { EditFormat, ProfileName } from "./names.js";

/** The family a model was trained in, when its name says so; undefined for anything else. */
export type ModelFamily = "openai" | "anthropic";

/** The provider a model is reached through, as Bridle's provider packages name them. */
export type ProviderKind = "openai" | "openai-chat" | "anthropic" | (string & {});

export interface Choice<T> {
  readonly value: T;
  /** One line saying why, for `bridle tools list` and logs. */
  readonly reason: string;
}

// OpenAI's own model names: gpt-4o, gpt-5-mini, o1, o3-mini, o4-mini, codex-mini-latest, gpt-5-codex.
// A provider prefix (openai/gpt-5 on a router) is looked through.
const OPENAI_MODEL = /^(?:gpt-|o[134](?:$|-)|codex)/;
const ANTHROPIC_MODEL = /^claude-/;

export function modelFamily(model: string): ModelFamily | undefined {
  const name = model.toLowerCase().split("/").at(-1) ?? "";
  if (OPENAI_MODEL.test(name)) return "openai";
  if (ANTHROPIC_MODEL.test(name)) return "anthropic";
  return undefined;
}

/**
 * The tool vocabulary a model was trained on, when Bridle can tell: OpenAI models on OpenAI's own APIs
 * get `openai`, Claude models on Anthropic's get `anthropic`; anything else (a local model behind an
 * OpenAI-compatible server, a model on another family's API) gets `generic`.
 */
export function chooseProfile(provider: ProviderKind, model: string): Choice<ProfileName> {
  const family = modelFamily(model);
  if (family === "openai" && (provider === "openai" || provider === "openai-chat")) {
    return { value: "openai", reason: `${model} is an OpenAI model on ${provider}: Codex's tool names` };
  }
  if (family === "anthropic" && provider === "anthropic") {
    return {
      value: "anthropic",
      reason: `${model} is a Claude model on anthropic: Claude Code's tool names`,
    };
  }
  return {
    value: "generic",
    reason: family
      ? `${model} is an ${family} model on ${provider}, not its own API: Bridle's generic names`
      : `${model} is not a model family Bridle recognises: Bridle's generic names`,
  };
}

/**
 * The edit format per model family until measurements say otherwise: OpenAI models are trained on
 * apply_patch, Claude models on exact string replacement; for other models anchored (hashline) edits
 * have shown the largest gains.
 */
export function chooseEditFormat(model: string): Choice<EditFormat> {
  switch (modelFamily(model)) {
    case "openai":
      return { value: "apply_patch", reason: `${model} is an OpenAI model, trained on apply_patch` };
    case "anthropic":
      return { value: "replace", reason: `${model} is a Claude model, trained on exact string replacement` };
    default:
      return {
        value: "hashline",
        reason: `${model} is not a family Bridle recognises: hashline (anchored) edits`,
      };
  }
}
