export type { AnthropicConnectionOptions } from "./client.js";
export { type AnthropicReasoningBlob, toAnthropicMessages } from "./input.js";
export {
  AnthropicModel,
  type AnthropicModelOptions,
  AnthropicStreamReader,
  createAnthropicModel,
} from "./model.js";
export { anthropicModels } from "./models.js";
