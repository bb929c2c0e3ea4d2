import type { ToolCallPart } from "./messages.js";
import type { ToolAnnotations } from "./tool.js";

export interface ApprovalRequest {
  readonly runId: string;
  readonly toolCall: ToolCallPart;
  /** The arguments after validation and repair. */
  readonly args: unknown;
  readonly annotations: ToolAnnotations;
}

export interface ApprovalDecision {
  readonly approved: boolean;
  /** Shown to the model when the call is refused. */
  readonly reason?: string;
}

/**
 * What an Approver answers: a decision now (a policy), or "ask" to pause the run until a person decides.
 * A paused run returns stop reason "approval_required" with a resume envelope.
 */
export type ApprovalAnswer = ApprovalDecision | "ask";

/**
 * Decides whether a call may run. By default it is consulted only for calls that need approval (the
 * tool's `requires_approval`); with `scope: "every_call"` it sees every valid call, so one policy can
 * approve reads and ask about writes.
 */
export interface Approver {
  readonly scope?: "requires_approval" | "every_call";
  decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}
