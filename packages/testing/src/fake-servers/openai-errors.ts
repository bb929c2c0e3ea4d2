import type { FakeErrorKind } from "./turn.js";

/** OpenAI's error body: `{ error: { message, type, param, code } }`. */
export function openaiErrorBody(kind: FakeErrorKind, message: string): unknown {
  const shapes: Record<FakeErrorKind, { type: string; code: string | null }> = {
    rate_limit: { type: "requests", code: "rate_limit_exceeded" },
    server: { type: "server_error", code: null },
    overloaded: { type: "server_error", code: "server_is_overloaded" },
    context_overflow: { type: "invalid_request_error", code: "context_length_exceeded" },
    bad_request: { type: "invalid_request_error", code: null },
    auth: { type: "invalid_request_error", code: "invalid_api_key" },
  };
  return { error: { message, ...shapes[kind], param: null } };
}
