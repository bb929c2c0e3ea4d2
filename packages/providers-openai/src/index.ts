export { type ChatCompat, chatCompat } from "./chat-compat.js";
export { toChatMessages } from "./chat-input.js";
export {
  ChatStreamReader,
  chatUsage,
  createOpenAIChatModel,
  OpenAIChatModel,
  type OpenAIChatModelOptions,
} from "./chat-model.js";
export type { OpenAIConnectionOptions } from "./client.js";
export { openaiChat, openaiResponses } from "./descriptors.js";
export { openaiModels } from "./models.js";
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
