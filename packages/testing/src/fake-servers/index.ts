export { anthropicErrorBody, anthropicMessagesFormat } from "./anthropic-messages.js";
export { openaiChatFormat } from "./openai-chat.js";
export { openaiErrorBody } from "./openai-errors.js";
export { openaiResponsesFormat } from "./openai-responses.js";
export { recordedReplies, recordedStreamsDir } from "./recorded.js";
export { FakeProviderServer, type FakeReply, type RecordedHttpRequest } from "./server.js";
export { chunkText, encodeSse, jsonEvent, type SseEvent, splitAt } from "./sse.js";
export {
  type FakeErrorKind,
  type FakeToolCall,
  type FakeTurn,
  type FakeWireFormat,
  fullUsage,
} from "./turn.js";
