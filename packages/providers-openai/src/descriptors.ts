import type { ProviderDescriptor } from "@bridle/provider-kit";
import { createOpenAIChatModel } from "./chat-model.js";
import { openaiModels } from "./models.js";
import { createOpenAIResponsesModel } from "./responses-model.js";

const connection = {
  keyVariables: ["OPENAI_API_KEY"],
  // A base URL may name a local OpenAI-compatible server (Ollama, vLLM) that takes any key.
  keyNeeded: "without-base-url",
  baseUrlVariable: "OPENAI_BASE_URL",
  models: openaiModels,
} as const;

/** OpenAI's Responses API: the default for OpenAI's own models. */
export const openaiResponses: ProviderDescriptor = Object.freeze<ProviderDescriptor>({
  name: "openai",
  label: "OpenAI Responses",
  ...connection,
  defaultModel: "gpt-5-mini",
  modelPattern: /^(gpt-|o\d|codex-|chatgpt-)/i,
  create: (options) => createOpenAIResponsesModel(options),
});

/** Chat Completions, for OpenAI and any OpenAI-compatible server: it claims no model names of its own. */
export const openaiChat: ProviderDescriptor = Object.freeze<ProviderDescriptor>({
  name: "openai-chat",
  label: "OpenAI Chat Completions",
  ...connection,
  defaultModel: "gpt-4.1-mini",
  create: (options) => createOpenAIChatModel(options),
});
