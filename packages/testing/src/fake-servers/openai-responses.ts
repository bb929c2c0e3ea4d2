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

/** The OpenAI Responses API's streaming events (POST /v1/responses with stream: true). */
export const openaiResponsesFormat: FakeWireFormat = {
  name: "openai-responses",
  path: "/v1/responses",
  baseUrl: (origin) => `${origin}/v1`,
  events: responsesEvents,
  errorBody: openaiErrorBody,
  streamError: (kind, message) => {
    const { error } = openaiErrorBody(kind, message) as { error: Record<string, unknown> };
    return jsonEvent(
      { type: "error", code: error.code ?? error.type, message, param: null, sequence_number: 2 },
      true,
    );
  },
  reportedUsage: (usage) => ({ ...fullUsage(usage), cacheWriteTokens: 0 }),
};

function responsesEvents(turn: FakeTurn): SseEvent[] {
  const payloads: Array<Record<string, unknown> & { type: string }> = [];
  const model = turn.model ?? "gpt-fake";
  const id = "resp_fake";
  const shell = {
    id,
    object: "response",
    created_at: 1_700_000_000,
    model,
    output: [] as unknown[],
    usage: null,
  };
  payloads.push({ type: "response.created", response: { ...shell, status: "in_progress" } });
  payloads.push({ type: "response.in_progress", response: { ...shell, status: "in_progress" } });
  const output: unknown[] = [];
  let index = 0;
  if (turn.reasoning !== undefined || turn.reasoningBlob !== undefined) {
    const itemId = "rs_fake";
    const text = turn.reasoning ?? "";
    payloads.push({
      type: "response.output_item.added",
      output_index: index,
      item: { type: "reasoning", id: itemId, summary: [] },
    });
    if (text) {
      const part = { item_id: itemId, output_index: index, summary_index: 0 };
      payloads.push({
        type: "response.reasoning_summary_part.added",
        ...part,
        part: { type: "summary_text", text: "" },
      });
      for (const delta of textPieces(text, turn))
        payloads.push({ type: "response.reasoning_summary_text.delta", ...part, delta });
      payloads.push({ type: "response.reasoning_summary_text.done", ...part, text });
      payloads.push({
        type: "response.reasoning_summary_part.done",
        ...part,
        part: { type: "summary_text", text },
      });
    }
    const item = {
      type: "reasoning",
      id: itemId,
      summary: text ? [{ type: "summary_text", text }] : [],
      ...(turn.reasoningBlob === undefined ? {} : { encrypted_content: turn.reasoningBlob }),
    };
    payloads.push({ type: "response.output_item.done", output_index: index, item });
    output.push(item);
    index++;
  }
  if (turn.text) {
    const itemId = "msg_fake";
    const base = { item_id: itemId, output_index: index, content_index: 0 };
    payloads.push({
      type: "response.output_item.added",
      output_index: index,
      item: { type: "message", id: itemId, role: "assistant", status: "in_progress", content: [] },
    });
    payloads.push({
      type: "response.content_part.added",
      ...base,
      part: { type: "output_text", text: "", annotations: [] },
    });
    for (const delta of textPieces(turn.text, turn))
      payloads.push({ type: "response.output_text.delta", ...base, delta, logprobs: [] });
    payloads.push({ type: "response.output_text.done", ...base, text: turn.text, logprobs: [] });
    const part = { type: "output_text", text: turn.text, annotations: [] };
    payloads.push({ type: "response.content_part.done", ...base, part });
    const item = { type: "message", id: itemId, role: "assistant", status: "completed", content: [part] };
    payloads.push({ type: "response.output_item.done", output_index: index, item });
    output.push(item);
    index++;
  }
  for (const call of turn.toolCalls ?? []) {
    const itemId = `fc_${call.id}`;
    const item = { type: "function_call", id: itemId, call_id: call.id, name: call.name, arguments: "" };
    payloads.push({
      type: "response.output_item.added",
      output_index: index,
      item: { ...item, status: "in_progress" },
    });
    for (const delta of argumentPieces(call, turn)) {
      payloads.push({
        type: "response.function_call_arguments.delta",
        item_id: itemId,
        output_index: index,
        delta,
      });
    }
    payloads.push({
      type: "response.function_call_arguments.done",
      item_id: itemId,
      output_index: index,
      arguments: call.arguments,
    });
    const done = { ...item, arguments: call.arguments, status: "completed" };
    payloads.push({ type: "response.output_item.done", output_index: index, item: done });
    output.push(done);
    index++;
  }
  const incomplete = stopReasonOf(turn) === "max_tokens";
  payloads.push({
    type: incomplete ? "response.incomplete" : "response.completed",
    response: {
      ...shell,
      status: incomplete ? "incomplete" : "completed",
      incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
      output,
      usage: responsesUsage(fullUsage(turn.usage)),
    },
  });
  return payloads.map((payload, sequence) => jsonEvent({ ...payload, sequence_number: sequence }, true));
}

function responsesUsage(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
