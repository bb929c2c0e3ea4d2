import type { Usage } from "@bridle/core";
import { chunkText, type SseEvent, splitAt } from "./sse.js";

export interface FakeToolCall {
  readonly id: string;
  readonly name: string;
  /** Raw JSON text of the arguments. */
  readonly arguments: string;
  /** Offsets where the arguments are cut into deltas (default: pieces of the turn's chunk size). */
  readonly splitAt?: readonly number[];
}

/** One scripted model turn, in neutral terms; each wire format renders it as its provider streams it. */
export interface FakeTurn {
  readonly text?: string;
  readonly reasoning?: string;
  /** The replay token: Anthropic's signature, or OpenAI Responses' encrypted_content. */
  readonly reasoningBlob?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  /** Neutral usage: inputTokens includes the cached parts. */
  readonly usage?: Partial<Usage>;
  /** Defaults to "tool_use" when there are tool calls, else "end_turn". */
  readonly stopReason?: "end_turn" | "tool_use" | "max_tokens";
  /** Characters per text or reasoning delta (default 8). */
  readonly chunkSize?: number;
  readonly model?: string;
}

/** How a provider's wire format renders turns and errors, for fake servers and the conformance suite. */
export interface FakeWireFormat {
  readonly name: "openai-responses" | "openai-chat" | "anthropic-messages";
  /** The path the SDK posts to. */
  readonly path: string;
  /** The base URL to give the SDK for a fake server at `origin`. */
  baseUrl(origin: string): string;
  /** The turn as the provider streams it. */
  events(turn: FakeTurn): SseEvent[];
  /** An error response body of the provider's shape. */
  errorBody(kind: FakeErrorKind, message: string): unknown;
  /** An error reported inside a 200 stream, as the provider sends one. */
  streamError(kind: FakeErrorKind, message: string): SseEvent;
  /** The usage an adapter must report for a turn's neutral usage, given what the format can express. */
  reportedUsage(usage: Partial<Usage>): Usage;
}

export type FakeErrorKind =
  | "rate_limit"
  | "server"
  | "context_overflow"
  | "bad_request"
  | "auth"
  | "overloaded";

export function fullUsage(usage: Partial<Usage> = {}): Usage {
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    cacheReadTokens: usage.cacheReadTokens ?? 0,
    cacheWriteTokens: usage.cacheWriteTokens ?? 0,
    reasoningTokens: usage.reasoningTokens ?? 0,
  };
}

export function textPieces(text: string, turn: FakeTurn): string[] {
  return chunkText(text, turn.chunkSize ?? 8);
}

export function argumentPieces(call: FakeToolCall, turn: FakeTurn): string[] {
  if (call.arguments === "") return [];
  return call.splitAt ? splitAt(call.arguments, call.splitAt) : textPieces(call.arguments, turn);
}

export function stopReasonOf(turn: FakeTurn): "end_turn" | "tool_use" | "max_tokens" {
  return turn.stopReason ?? (turn.toolCalls?.length ? "tool_use" : "end_turn");
}
