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

/** Decides whether a call to a tool that requires approval may run. */
export interface Approver {
  decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}
