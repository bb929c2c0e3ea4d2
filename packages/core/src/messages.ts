// Provider-neutral conversation records. Plain readonly data: providers translate to and from these,
// stores persist them inside events, and the transcript is built from them.

export interface TextPart {
  readonly type: "text";
  readonly text: string;
}

/** An image given inline (base64) or by URL. */
export interface ImagePart {
  readonly type: "image";
  readonly mediaType: string;
  readonly data?: string;
  readonly url?: string;
}

/**
 * Model reasoning. `blob` is the provider's opaque replay token (a signature, encrypted content, redacted
 * data); it is only ever replayed to the provider named in `provider`, never interpreted. It must be a JSON
 * value (strings, plain objects): it is persisted with events and resume envelopes.
 */
export interface ReasoningPart {
  readonly type: "reasoning";
  readonly text: string;
  readonly provider?: string;
  readonly blob?: unknown;
  readonly redacted?: boolean;
}

/** A tool call exactly as the model emitted it: `arguments` is the raw JSON text, never re-serialized. */
export interface ToolCallPart {
  readonly type: "tool_call";
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export type UserContent = TextPart | ImagePart;
export type AssistantContent = TextPart | ReasoningPart | ToolCallPart;
export type ToolResultContent = TextPart | ImagePart;

export interface SystemMessage {
  readonly role: "system";
  readonly content: string;
}

export interface UserMessage {
  readonly role: "user";
  readonly content: readonly UserContent[];
}

export interface AssistantMessage {
  readonly role: "assistant";
  readonly content: readonly AssistantContent[];
  /** Which adapter and model produced it: reasoning blobs are replayed only to the same provider. */
  readonly provider?: string;
  readonly model?: string;
}

/** The kinds of model-visible tool failure. Each is named in the text the model sees. */
export type ToolFailureKind =
  | "InvalidInput"
  | "NotFound"
  | "Denied"
  | "Timeout"
  | "Conflict"
  | "UnknownTool"
  | "Cancelled"
  | "LimitExceeded"
  | "ToolError"
  /** The tool asked the model to fix its call and retry (it threw `ModelRetry`). */
  | "RetryRequested"
  /** A human (or the application) rejected the call while the run was paused for approval. */
  | "ApprovalRejected";

export interface ToolResultMessage {
  readonly role: "tool";
  readonly toolCallId: string;
  readonly toolName: string;
  /** What the model sees. */
  readonly content: readonly ToolResultContent[];
  /** What interfaces see: structured data the model never receives. */
  readonly details?: unknown;
  readonly isError: boolean;
  readonly errorKind?: ToolFailureKind;
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

export function userText(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }] };
}

export function textOf(content: readonly { readonly type: string; readonly text?: string }[]): string {
  let out = "";
  for (const part of content) if (part.type === "text" && part.text !== undefined) out += part.text;
  return out;
}

export function toolCallsOf(message: AssistantMessage): ToolCallPart[] {
  return message.content.filter((part): part is ToolCallPart => part.type === "tool_call");
}
