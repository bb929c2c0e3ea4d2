import type { ProviderDescriptor } from "@bridle/provider-kit";
import { createAnthropicModel } from "./model.js";
import { anthropicModels } from "./models.js";

/** Anthropic's Messages API. */
export const anthropic: ProviderDescriptor = Object.freeze<ProviderDescriptor>({
  name: "anthropic",
  label: "Anthropic Messages",
  keyVariables: ["ANTHROPIC_API_KEY"],
  // The API takes no request without a key, whatever server it is sent to.
  keyNeeded: "always",
  baseUrlVariable: "ANTHROPIC_BASE_URL",
  defaultModel: "claude-sonnet-4-6",
  models: anthropicModels,
  modelPattern: /^claude-/i,
  create: (options) => createAnthropicModel(options),
});
