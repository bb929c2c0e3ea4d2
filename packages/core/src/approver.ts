import type { ToolCallPart } from "./messages.js";
import type { ToolAnnotations } from "./tool.js";

export interface ApprovalRequest {
  readonly runId: string;
  readonly toolCall: ToolCallPart;
  /** The arguments after validation and repair. */
  readonly args: unknown;
  readonly annotations: ToolAnnotations;
  /**
   * What the tool says about this call, from its `approvalScope`: what "always" may cover, and why the
   * call asks (`why`). Absent: the tool offers nothing narrower, and an approver that remembers answers
   * remembers the whole tool.
   */
  readonly scope?: ApprovalScope;
  /**
   * Set when a hook, not the tool, asks for a person's approval (a hook script's
   * `permissionDecision: "ask"`): why, to show them. Such a request wants a person's answer: an approver
   * that remembers "always" answers asks anyway, and offers no "always".
   */
  readonly reason?: string;
}

/**
 * How far an answer to one call may reach. A tool whose calls differ in risk (a shell command) names
 * the narrow thing a person would approve for good, so the approver never widens it to the whole tool
 * and never re-parses the arguments itself.
 */
export interface ApprovalScope {
  /**
   * What "always" approves: calls of the same tool whose scope has the same `key` (a canonical rule,
   * say) run unasked for the rest of the session; `label` is how a person reads it ("npm test").
   * Absent: "always" is not offered for this call.
   */
  readonly always?: { readonly key: string; readonly label: string };
  /** Why "always" is not offered, or what else a person should know before answering; plain text. */
  readonly note?: string;
  /**
   * Set when the call asks to run outside the sandbox: it asks a person every time, and a refusal tells
   * the model what it can do instead.
   */
  readonly escalation?: { readonly justification: string };
  /**
   * Why this call needs a person at all, in one short line (a command policy's reason: "sed -i modifies
   * files"). An approver shows it with its question; a refusal carries it to the model, so the model knows
   * what was refused and why. Not `ApprovalRequest.reason`, which is a hook's and also withholds "always".
   */
  readonly why?: string;
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
