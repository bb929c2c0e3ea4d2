import { jsonEvent, type SseEvent } from "./sse.js";
import {
  argumentPieces,
  type FakeErrorKind,
  type FakeTurn,
  type FakeWireFormat,
  fullUsage,
  stopReasonOf,
  textPieces,
} from "./turn.js";

/**
 * The Anthropic Messages API's streaming events (POST /v1/messages with stream: true): message_start,
 * content blocks (thinking with its signature, text, tool_use with input_json_delta), message_delta with
 * the stop reason and output tokens, message_stop. Input tokens exclude the cache reads and writes, which
 * are reported beside them.
 */
export const anthropicMessagesFormat: FakeWireFormat = {
  name: "anthropic-messages",
  path: "/v1/messages",
  baseUrl: (origin) => origin,
  events: anthropicEvents,
  errorBody: anthropicErrorBody,
  streamError: (kind, message) => ({
    event: "error",
    data: JSON.stringify(anthropicErrorBody(kind, message)),
  }),
  // Anthropic does not report reasoning tokens apart from output tokens.
  reportedUsage: (usage) => ({ ...fullUsage(usage), reasoningTokens: 0 }),
};

function anthropicEvents(turn: FakeTurn): SseEvent[] {
  const usage = fullUsage(turn.usage);
  const payloads: Array<{ type: string } & Record<string, unknown>> = [];
  payloads.push({
    type: "message_start",
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      content: [],
      model: turn.model ?? "claude-fake",
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens,
        cache_creation_input_tokens: usage.cacheWriteTokens,
        cache_read_input_tokens: usage.cacheReadTokens,
        output_tokens: 1,
      },
    },
  });
  payloads.push({ type: "ping" });
  let index = 0;
  if (turn.reasoning !== undefined || turn.reasoningBlob !== undefined) {
    payloads.push({
      type: "content_block_start",
      index,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    for (const thinking of turn.reasoning ? textPieces(turn.reasoning, turn) : []) {
      payloads.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } });
    }
    if (turn.reasoningBlob !== undefined) {
      payloads.push({
        type: "content_block_delta",
        index,
        delta: { type: "signature_delta", signature: turn.reasoningBlob },
      });
    }
    payloads.push({ type: "content_block_stop", index });
    index++;
  }
  if (turn.text) {
    payloads.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (const text of textPieces(turn.text, turn)) {
      payloads.push({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
    }
    payloads.push({ type: "content_block_stop", index });
    index++;
  }
  for (const call of turn.toolCalls ?? []) {
    payloads.push({
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
    });
    for (const partial_json of argumentPieces(call, turn)) {
      payloads.push({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json },
      });
    }
    payloads.push({ type: "content_block_stop", index });
    index++;
  }
  payloads.push({
    type: "message_delta",
    delta: { stop_reason: stopReasonOf(turn), stop_sequence: null },
    usage: { output_tokens: usage.outputTokens },
  });
  payloads.push({ type: "message_stop" });
  return payloads.map((payload) => jsonEvent(payload, true));
}

/** Anthropic's error body: `{ type: "error", error: { type, message } }`. */
export function anthropicErrorBody(kind: FakeErrorKind, message: string): unknown {
  const types: Record<FakeErrorKind, string> = {
    rate_limit: "rate_limit_error",
    server: "api_error",
    overloaded: "overloaded_error",
    context_overflow: "invalid_request_error",
    bad_request: "invalid_request_error",
    auth: "authentication_error",
  };
  return { type: "error", error: { type: types[kind], message } };
}
