// How a call that will not run is answered to the model: one wording for every front door (a Bridle run,
// the AI SDK tool set), so a model hears the same words whichever harness refused it.
import type { ApprovalDecision } from "./approver.js";
import { failureText } from "./failure-text.js";
import type { ToolCallPart, ToolResultMessage } from "./messages.js";
import { failureResult } from "./tool-call.js";

/** A call's approval, settled before the call would run. */
export interface SettledApproval {
  /** Approved or not; a refusal's `reason` is told to the model. */
  readonly decision: ApprovalDecision;
  /** Given on resume by a person (rejection: ApprovalRejected) rather than by the approver's policy. */
  readonly byHuman: boolean;
  /** The model-visible reason of a refusal made without asking anyone. */
  readonly refusal?: string;
  /** Why the call asked (`ApprovalScope.why`): a refusal tells the model what was refused and why. */
  readonly why?: string;
}

/**
 * The result a refused call is answered with: the approver's reason, and why the call asked for approval,
 * so the model can do the task another way rather than ask again.
 */
export function refusedCallResult(call: ToolCallPart, approval: SettledApproval): ToolResultMessage {
  if (approval.refusal) return failureResult(call, "Denied", failureText("Denied", approval.refusal));
  const said = approval.decision.reason ? `: ${approval.decision.reason}` : "";
  const asked = approval.why ? ` (it asked because ${approval.why})` : "";
  if (approval.byHuman) {
    return failureResult(
      call,
      "ApprovalRejected",
      failureText("ApprovalRejected", `the user rejected this call${said}${asked}`),
    );
  }
  return failureResult(
    call,
    "Denied",
    failureText("Denied", `the user did not approve this call${said}${asked}`),
  );
}
