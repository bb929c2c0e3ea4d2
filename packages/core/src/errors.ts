import type { ToolFailureKind } from "./messages.js";

/**
 * A model-correctable failure. Thrown by a tool (or the workspace policy it calls), it becomes a tool
 * result the model sees, starting with its kind; the run goes on.
 */
export class ToolFailure extends Error {
  override readonly name = "ToolFailure";
  readonly kind: ToolFailureKind;
  readonly details: unknown;

  constructor(kind: ToolFailureKind, message: string, options?: { details?: unknown; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.details = options?.details;
  }
}

/**
 * Thrown by a tool to ask the model to retry the call with a hint ("the branch does not exist; list
 * branches first"). The model sees `RetryRequested: <hint>` and the call counts against the tool's retry
 * budget, like malformed arguments do.
 */
export class ModelRetry extends Error {
  override readonly name = "ModelRetry";

  constructor(hint: string, options?: { cause?: unknown }) {
    super(hint, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** Stable codes for failures that end a run or reject a configuration. */
export type BridleErrorCode =
  | "invalid_config"
  | "tool_infrastructure"
  | "duplicate_tool"
  | "store_write"
  | "store_conflict"
  | "store_corrupt"
  | "not_found"
  | "invalid_continue"
  | "envelope_version"
  | "envelope_invalid"
  | "envelope_tampered"
  | "envelope_tools_changed"
  | "envelope_already_resumed"
  | "approval_decisions_mismatch"
  | "approval_secret_insecure"
  | "approval_secret_invalid"
  | "invalid_argument"
  | "not_regular_file"
  | "file_too_large"
  | "run_ended";

/**
 * An infrastructure failure: something the model cannot fix (a sandbox that will not start, a disk that
 * is full). Thrown from a tool, it ends the run with stop reason "tool_error".
 */
export class BridleError extends Error {
  override readonly name = "BridleError";
  readonly code: BridleErrorCode;

  constructor(code: BridleErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
