export type { AnthropicConnectionOptions } from "./client.js";
export { anthropic } from "./descriptor.js";
export { type AnthropicReasoningBlob, toAnthropicMessages } from "./input.js";
export {
  AnthropicModel,
  type AnthropicModelOptions,
  AnthropicStreamReader,
  createAnthropicModel,
} from "./model.js";
export { anthropicModels } from "./models.js";
