import type { AssistantMessage, Message, ModelStopReason, ToolResultMessage } from "@bridle/core";

/** Content capture: prompts, model output, tool arguments and results. Off unless asked for. */
export interface ContentCaptureOptions {
  /** Most characters one captured attribute value may hold (default 8192). */
  readonly maxLength?: number;
}

export const DEFAULT_CONTENT_MAX_LENGTH = 8192;

/**
 * The capture limit in effect, or undefined when capture is off. Unset means the convention's opt-in
 * variable, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, decides.
 */
export function captureLimit(option: boolean | ContentCaptureOptions | undefined): number | undefined {
  const on =
    option === undefined
      ? process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === "true"
      : option !== false;
  if (!on) return undefined;
  const max = typeof option === "object" ? option.maxLength : undefined;
  return max !== undefined && Number.isFinite(max) && max >= 1 ? Math.floor(max) : DEFAULT_CONTENT_MAX_LENGTH;
}

export interface Captured {
  readonly text: string;
  readonly truncated: boolean;
}

/** Cuts text to `max` characters, saying how much was cut. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (omitted: number) => `…[${omitted} more chars]`;
  const keep = max - marker(text.length).length;
  if (keep <= 0) return text.slice(0, max);
  return text.slice(0, keep) + marker(text.length - keep);
}

function shrinkStrings(value: unknown, budget: number): unknown {
  if (typeof value === "string") return truncateText(value, budget);
  if (Array.isArray(value)) return value.map((item) => shrinkStrings(item, budget));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = shrinkStrings(item, budget);
    return out;
  }
  return value;
}

/**
 * JSON of `value` within `max` characters. Long strings inside are cut first, so the result stays valid
 * JSON with its structure (the convention's advice); only a value whose bulk is not strings is cut as text.
 */
export function capJson(value: unknown, max: number): Captured {
  const whole = JSON.stringify(value) ?? "null";
  if (whole.length <= max) return { text: whole, truncated: false };
  for (let budget = max; budget >= 16; budget = Math.floor(budget / 2)) {
    const text = JSON.stringify(shrinkStrings(value, budget)) ?? "null";
    if (text.length <= max) return { text, truncated: true };
  }
  return { text: truncateText(whole, max), truncated: true };
}

/** Raw JSON text (tool arguments) within `max`: parsed and capped when it parses, cut as text when not. */
export function capJsonText(raw: string, max: number): Captured {
  if (raw.length <= max) return { text: raw, truncated: false };
  try {
    return capJson(JSON.parse(raw) as unknown, max);
  } catch {
    return { text: truncateText(raw, max), truncated: true };
  }
}

/**
 * Messages as the convention's JSON within `max`: the most recent messages are kept whole and older ones
 * are dropped; a last message that alone is too large has its strings cut.
 */
export function capMessages(messages: readonly unknown[], max: number): Captured {
  return capEncodedMessages(
    messages.map((message) => JSON.stringify(message)),
    max,
    (start) => messages.slice(start),
  );
}

/**
 * `capMessages` over messages already encoded (a tracer caches each message's JSON, so a long run does not
 * re-encode its whole transcript every turn). `values(start)` gives the messages from `start` on, needed
 * only when even the newest one alone is too large.
 */
export function capEncodedMessages(
  encoded: readonly string[],
  max: number,
  values: (start: number) => readonly unknown[],
): Captured {
  let total = 2 + encoded.reduce((sum, text) => sum + text.length + 1, 0) - (encoded.length ? 1 : 0);
  let start = 0;
  while (total > max && start < encoded.length - 1) {
    total -= (encoded[start]?.length ?? 0) + 1;
    start++;
  }
  if (total <= max) return { text: `[${encoded.slice(start).join(",")}]`, truncated: start > 0 };
  return { text: capJson(values(start), max).text, truncated: true };
}

/** The convention's finish reasons (stop, length, content_filter, tool_call); others pass through. */
export function finishReason(stopReason: ModelStopReason): string {
  switch (stopReason) {
    case "end_turn":
      return "stop";
    case "tool_use":
      return "tool_call";
    case "max_tokens":
      return "length";
    default:
      return stopReason;
  }
}

function parseArguments(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** Text of a tool result as the model saw it; images are named, not inlined. */
export function toolResultText(result: ToolResultMessage): string {
  let out = "";
  for (const part of result.content) {
    out += part.type === "text" ? part.text : `[image ${part.mediaType}]`;
  }
  return out;
}

/** One Bridle message in the convention's input/output message shape (role, parts). */
export function conventionMessage(message: Message): Record<string, unknown> {
  switch (message.role) {
    case "system":
      return { role: "system", parts: [{ type: "text", content: message.content }] };
    case "user":
      return {
        role: "user",
        parts: message.content.map((part) =>
          part.type === "text"
            ? { type: "text", content: part.text }
            : part.url
              ? { type: "uri", modality: "image", mime_type: part.mediaType, uri: part.url }
              : { type: "image", mime_type: part.mediaType, bytes_base64: part.data?.length ?? 0 },
        ),
      };
    case "assistant":
      return { role: "assistant", parts: assistantParts(message) };
    case "tool":
      return {
        role: "tool",
        parts: [{ type: "tool_call_response", id: message.toolCallId, response: toolResultText(message) }],
      };
  }
}

function assistantParts(message: AssistantMessage): Record<string, unknown>[] {
  return message.content.map((part) => {
    if (part.type === "text") return { type: "text", content: part.text };
    if (part.type === "reasoning") return { type: "reasoning", content: part.text };
    return { type: "tool_call", id: part.id, name: part.name, arguments: parseArguments(part.arguments) };
  });
}

/** A model turn as the convention's output message. */
export function outputMessage(
  message: AssistantMessage,
  stopReason: ModelStopReason,
): Record<string, unknown> {
  return { ...conventionMessage(message), finish_reason: finishReason(stopReason) };
}
