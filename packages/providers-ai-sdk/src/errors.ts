import { APICallError } from "@ai-sdk/provider";
import { type ClassifiedError, classifyError, classifyHttpFailure } from "@bridle/provider-kit";

/**
 * Classifies what an AI SDK model threw or put in an `error` stream part, with provider-kit's rules: an
 * `APICallError` by its status, headers (Retry-After) and parsed body, the SDK's parse and validation errors
 * as a malformed response, an error object inside the stream by its type, and the rest (fetch failures,
 * aborts) as provider-kit classifies any throwable.
 */
export function classifyAISDKError(error: unknown, signal?: AbortSignal): ClassifiedError {
  if (signal?.aborted) return classifyError(error, signal);
  if (APICallError.isInstance(error)) return apiCallFailure(error, signal);
  const name = error instanceof Error ? error.name : "";
  if (
    name === "AI_JSONParseError" ||
    name === "AI_TypeValidationError" ||
    name === "AI_EmptyResponseBodyError" ||
    name === "AI_InvalidResponseDataError"
  ) {
    return {
      code: "bad_response",
      message: `malformed response from the provider: ${error instanceof Error ? error.message : ""}`.slice(
        0,
        600,
      ),
      retryable: false,
    };
  }
  if (name === "AI_LoadAPIKeyError") {
    return { code: "auth", message: (error as Error).message.slice(0, 600), retryable: false };
  }
  if (!(error instanceof Error) && typeof error === "object" && error !== null) {
    // An error the provider sent inside a 200 stream: its body, as the provider package passed it on.
    return classifyHttpFailure({ message: bodyMessage(error) ?? JSON.stringify(error), body: error });
  }
  return classifyError(error, signal);
}

function apiCallFailure(error: APICallError, signal: AbortSignal | undefined): ClassifiedError {
  if (error.statusCode === undefined || error.statusCode < 400) {
    // No response, or a successful one whose body broke off: the SDK wraps the fetch failure it saw.
    const cause = error.cause === undefined ? undefined : classifyError(error.cause, signal);
    if (cause && cause.code !== "unknown") return cause;
    return {
      code: error.isRetryable ? "network" : "unknown",
      message: error.message.slice(0, 600),
      retryable: error.isRetryable,
    };
  }
  return classifyHttpFailure({
    status: error.statusCode,
    message: error.message,
    ...(error.responseHeaders ? { headers: error.responseHeaders } : {}),
    body: error.data ?? parsedBody(error.responseBody),
  });
}

function parsedBody(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function bodyMessage(body: object): string | undefined {
  const record = body as { message?: unknown; error?: unknown };
  if (typeof record.message === "string") return record.message;
  if (typeof record.error === "object" && record.error !== null) return bodyMessage(record.error);
  return typeof record.error === "string" ? record.error : undefined;
}
