import type { Usage } from "@bridle/core";
import { openaiErrorBody } from "./openai-errors.js";
import { jsonEvent, type SseEvent } from "./sse.js";
import {
  argumentPieces,
  type FakeTurn,
  type FakeWireFormat,
  fullUsage,
  stopReasonOf,
  textPieces,
} from "./turn.js";

/**
 * Chat Completions streaming chunks (POST /v1/chat/completions with stream: true and
 * stream_options.include_usage), as OpenAI and compatible servers send them; reasoning arrives as
 * `delta.reasoning_content`, the field vLLM and DeepSeek use. Ends with `data: [DONE]`.
 */
export const openaiChatFormat: FakeWireFormat = {
  name: "openai-chat",
  path: "/v1/chat/completions",
  baseUrl: (origin) => `${origin}/v1`,
  events: chatEvents,
  errorBody: openaiErrorBody,
  streamError: (kind, message) => jsonEvent(openaiErrorBody(kind, message) as object, false),
  reportedUsage: (usage) => ({ ...fullUsage(usage), cacheWriteTokens: 0 }),
};

function chatEvents(turn: FakeTurn): SseEvent[] {
  const model = turn.model ?? "gpt-fake";
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const chunks: object[] = [chunk({ role: "assistant", content: "" })];
  for (const delta of turn.reasoning ? textPieces(turn.reasoning, turn) : [])
    chunks.push(chunk({ reasoning_content: delta }));
  for (const delta of turn.text ? textPieces(turn.text, turn) : []) chunks.push(chunk({ content: delta }));
  (turn.toolCalls ?? []).forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const piece of argumentPieces(call, turn)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  const finish = { end_turn: "stop", tool_use: "tool_calls", max_tokens: "length" }[stopReasonOf(turn)];
  chunks.push(chunk({}, finish));
  chunks.push({
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
    choices: [],
    usage: chatUsage(fullUsage(turn.usage)),
  });
  return [...chunks.map((payload) => jsonEvent(payload, false)), { data: "[DONE]" }];
}

function chatUsage(usage: Usage): Record<string, unknown> {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
