export type { OpenAIConnectionOptions } from "./client.js";
export { openaiPrices } from "./prices.js";
export {
  isResponsesReasoningBlob,
  type ResponsesReasoningBlob,
  toResponsesInput,
} from "./responses-input.js";
export {
  createOpenAIResponsesModel,
  OpenAIResponsesModel,
  type OpenAIResponsesModelOptions,
  ResponsesStreamReader,
  responsesUsage,
} from "./responses-model.js";
