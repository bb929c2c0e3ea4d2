import type { ModelError } from "@bridle/core";
import { type HeaderSource, headerValue, retryAfterMs } from "./retry.js";

/** A classified failure, with the wait the server asked for when it sent one. */
export interface ClassifiedError extends ModelError {
  readonly retryAfterMs?: number;
}

const overflowPattern =
  /context[_ ]length|context window|maximum context|prompt is too long|too many tokens|input is too long|reduce the length|exceeds? the (model'?s? )?(maximum|context)|input tokens exceed/i;

const maxMessageLength = 600;

const inputErrors = new Set<string>(["bad_request", "auth", "context_overflow"]);

/**
 * Classifies a failure the openai or @anthropic-ai/sdk client threw (both are generated from the same
 * template, so their errors share a shape: `status`, `headers`, `error` body, and named subclasses for
 * aborts, timeouts and connection failures). Unknown throwables are classified by what they are.
 */
export function classifyError(error: unknown, signal?: AbortSignal): ClassifiedError {
  if (signal?.aborted) return { code: "aborted", message: "the request was aborted", retryable: false };
  // The SDKs' error subclasses keep Error's `name`, so their class name is what tells them apart.
  const name = error instanceof Error ? (error.name !== "Error" ? error.name : error.constructor.name) : "";
  const message = bounded(error instanceof Error ? error.message : String(error));
  if (name === "APIUserAbortError" || name === "AbortError") {
    return { code: "aborted", message: "the request was aborted", retryable: false };
  }
  if (name === "APIConnectionTimeoutError") return { code: "timeout", message, retryable: true };
  if (name === "APIConnectionError")
    return { code: "network", message: connectionMessage(error), retryable: true };
  if (error instanceof SyntaxError) {
    return {
      code: "bad_response",
      message: `malformed stream from the provider: ${message}`,
      retryable: false,
    };
  }
  const fields = errorFields(error);
  if (fields.status !== undefined || fields.body !== undefined) {
    return classifyHttpFailure({
      ...(fields.status === undefined ? {} : { status: fields.status }),
      message,
      ...(fields.headers ? { headers: fields.headers } : {}),
      ...(fields.body === undefined ? {} : { body: fields.body }),
    });
  }
  // undici reports a connection that dropped mid-body as a TypeError ("terminated", "fetch failed").
  if (
    error instanceof TypeError &&
    /terminated|fetch failed|socket|ECONN|EPIPE/i.test(message + causeText(error))
  ) {
    return { code: "network", message: `connection failed: ${message}`, retryable: true };
  }
  return { code: "unknown", message, retryable: false };
}

export interface HttpFailure {
  /** HTTP status; absent for an error event inside a 200 stream. */
  readonly status?: number;
  readonly message: string;
  readonly headers?: HeaderSource;
  /** The provider's error object (`{ type, code, message }`), if it sent one. */
  readonly body?: unknown;
}

/**
 * Classifies an HTTP error response or an in-stream error event by status and provider error type. An
 * `x-should-retry` header (OpenAI and Anthropic send one) can stop a retry, or allow one for anything but an
 * input error.
 */
export function classifyHttpFailure(failure: HttpFailure): ClassifiedError {
  const classified = classifyByStatus(failure);
  const hint = failure.headers ? headerValue(failure.headers, "x-should-retry") : undefined;
  if (hint === "false") return { ...classified, retryable: false };
  // Input errors stay final whatever the header says: resending the same request cannot fix them.
  if (hint === "true" && !inputErrors.has(classified.code)) return { ...classified, retryable: true };
  return classified;
}

function classifyByStatus(failure: HttpFailure): ClassifiedError {
  const { status } = failure;
  const kind = errorKind(failure.body);
  const text = `${failure.message} ${kind ?? ""}`;
  const message = bounded(failure.message);
  const base = { message, ...(status === undefined ? {} : { status }) };
  const wait = retryAfterMs(failure.headers);
  const retry = wait === undefined ? {} : { retryAfterMs: wait };
  if (kind === "insufficient_quota") return { ...base, code: "rate_limit", retryable: false };
  if (status === 401 || status === 403 || /authentication|permission|invalid_api_key/.test(kind ?? "")) {
    return { ...base, code: "auth", retryable: false };
  }
  if (status === 413 || kind === "context_length_exceeded" || overflowPattern.test(text)) {
    if (status === undefined || (status >= 400 && status < 500))
      return { ...base, code: "context_overflow", retryable: false };
  }
  if (status === 429 || /rate_limit/.test(kind ?? ""))
    return { ...base, ...retry, code: "rate_limit", retryable: true };
  if (status === 408) return { ...base, ...retry, code: "timeout", retryable: true };
  if (
    status === 409 ||
    (status !== undefined && status >= 500) ||
    /overloaded|server_error|api_error/.test(kind ?? "")
  ) {
    return { ...base, ...retry, code: "server", retryable: true };
  }
  if (status !== undefined && status >= 400) return { ...base, code: "bad_request", retryable: false };
  if (/invalid_request/.test(kind ?? "")) return { ...base, code: "bad_request", retryable: false };
  return { ...base, code: "unknown", retryable: false };
}

function errorFields(error: unknown): { status?: number; headers?: HeaderSource; body?: unknown } {
  if (typeof error !== "object" || error === null) return {};
  const record = error as { status?: unknown; headers?: unknown; error?: unknown };
  const out: { status?: number; headers?: HeaderSource; body?: unknown } = {};
  if (typeof record.status === "number") out.status = record.status;
  if (typeof record.headers === "object" && record.headers !== null)
    out.headers = record.headers as HeaderSource;
  if (record.error !== undefined && record.error !== null) out.body = record.error;
  return out;
}

/** The provider's error type or code, wherever its body puts it. */
function errorKind(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const record = body as { type?: unknown; code?: unknown; error?: unknown };
  if (typeof record.code === "string" && record.code) return record.code;
  if (record.error !== undefined) {
    const inner = errorKind(record.error);
    if (inner) return inner;
  }
  return typeof record.type === "string" && record.type !== "error" ? record.type : undefined;
}

function connectionMessage(error: unknown): string {
  const cause = causeText(error);
  return bounded(`connection to the provider failed${cause ? `: ${cause}` : ""}`);
}

function causeText(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return `${cause.message}${causeText(cause) ? ` (${causeText(cause)})` : ""}`;
  return "";
}

function bounded(text: string): string {
  return text.length > maxMessageLength ? `${text.slice(0, maxMessageLength)}…` : text;
}
