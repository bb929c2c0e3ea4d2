import type { ApprovalAnswer, ApprovalDecision, ApprovalScope, Approver } from "./approver.js";
import { errorMessage } from "./errors.js";
import type { ToolCallPart } from "./messages.js";
import type { AnyTool, ToolAnnotations } from "./tool.js";
import type { Workspace } from "./workspace.js";

/** A call the run paused for: a person (or a later process) decides whether it runs. */
export interface PendingApproval {
  readonly toolCall: ToolCallPart;
  /** The arguments after validation and repair, as the tool would receive them. */
  readonly args: unknown;
  readonly annotations: ToolAnnotations;
  /** Why the call asks, as its tool said (`ApprovalScope.why`), for whoever shows it to a person. */
  readonly why?: string;
}

/** A decision given when resuming a paused run, keyed by tool call id. */
export type ApprovalDecisions = Readonly<Record<string, ApprovalDecision>>;

/** A valid call that may need approval. */
export interface ApprovalCandidate {
  readonly call: ToolCallPart;
  readonly tool: AnyTool;
  readonly args: unknown;
}

export interface ApprovalPhase {
  /** Calls decided at once by the approver (a policy), by call id. */
  readonly decided: ReadonlyMap<string, ApprovalDecision>;
  /** Calls that wait for a person: the run pauses before any call of the batch runs. */
  readonly pending: readonly PendingApproval[];
  /** Calls refused outright (approval needed, no approver configured): id → model-visible reason. */
  readonly refused: ReadonlyMap<string, string>;
  /** Why each call that went to the approver asks, by call id, where its tool said (`ApprovalScope.why`). */
  readonly why: ReadonlyMap<string, string>;
}

/** Whether a call needs approval before it runs, whatever the approver's scope. */
export function requiresApproval(tool: AnyTool): boolean {
  return tool.annotations?.requires_approval === true;
}

/** A tool's per-call verdict; failing closed (approval needed) when it throws or has no workspace. */
async function callNeedsApproval(
  tool: AnyTool,
  args: unknown,
  runId: string,
  workspace: Workspace | undefined,
  signal: AbortSignal,
): Promise<boolean> {
  if (!tool.needsApproval) return false;
  if (!workspace) return true;
  try {
    return (await tool.needsApproval(args, { runId, workspace, signal })) === true;
  } catch {
    return true;
  }
}

/** A tool's scope for "always"; failing closed (only this call) when it throws or has no workspace. */
async function callScope(
  tool: AnyTool,
  args: unknown,
  runId: string,
  workspace: Workspace | undefined,
  signal: AbortSignal,
): Promise<ApprovalScope | undefined> {
  if (!tool.approvalScope) return undefined;
  if (!workspace) return { note: "the workspace is unknown, so the call's scope is too" };
  try {
    return await tool.approvalScope(args, { runId, workspace, signal });
  } catch (error) {
    return { note: `the call's scope could not be worked out (${errorMessage(error).slice(0, 120)})` };
  }
}

/**
 * Settles approvals for one batch before any of its calls runs. A call that needs approval goes to the
 * approver; its decision holds at once, while "ask" leaves the call pending (the run pauses). Without an
 * approver such a call is refused: pausing is something the application opts into (`askApprover`).
 * The approver is asked one call at a time, in the model's order.
 */
export async function settleApprovals(
  candidates: readonly ApprovalCandidate[],
  options: {
    readonly runId: string;
    readonly approver: Approver | undefined;
    readonly signal: AbortSignal;
    /** Given to tools that decide approval per call (`needsApproval`); without it such calls need approval. */
    readonly workspace?: Workspace;
    requested(call: ToolCallPart): void;
    resolved(call: ToolCallPart, decision: ApprovalDecision): void;
  },
): Promise<ApprovalPhase> {
  const decided = new Map<string, ApprovalDecision>();
  const pending: PendingApproval[] = [];
  const refused = new Map<string, string>();
  const whys = new Map<string, string>();
  const { approver } = options;
  for (const { call, tool, args } of candidates) {
    const needed =
      requiresApproval(tool) ||
      approver?.scope === "every_call" ||
      (await callNeedsApproval(tool, args, options.runId, options.workspace, options.signal));
    if (!needed) continue;
    const annotations = tool.annotations ?? {};
    if (!approver) {
      refused.set(call.id, `${call.name} requires approval and no approver is configured for this run`);
      continue;
    }
    options.requested(call);
    let answer: ApprovalAnswer;
    let why: string | undefined;
    try {
      const scope = withBoundedWhy(
        await callScope(tool, args, options.runId, options.workspace, options.signal),
      );
      why = scope?.why;
      if (why !== undefined) whys.set(call.id, why);
      answer = await approver.decide(
        { runId: options.runId, toolCall: call, args, annotations, ...(scope ? { scope } : {}) },
        options.signal,
      );
    } catch (error) {
      answer = { approved: false, reason: `approval could not be obtained: ${errorMessage(error)}` };
    }
    if (answer === "ask") {
      pending.push({ toolCall: call, args, annotations, ...(why === undefined ? {} : { why }) });
    } else {
      const decision: ApprovalDecision =
        answer.reason === undefined
          ? { approved: answer.approved === true }
          : { approved: answer.approved === true, reason: answer.reason };
      decided.set(call.id, decision);
      options.resolved(call, decision);
    }
  }
  return { decided, pending, refused, why: whys };
}

// A tool's reason is one line for a person and the model: a longer one is cut, never carried whole.
const MAX_WHY_CHARS = 300;

/** The scope with its `why` on one bounded line, or without it when it says nothing. */
function withBoundedWhy(scope: ApprovalScope | undefined): ApprovalScope | undefined {
  if (scope?.why === undefined) return scope;
  const { why: given, ...rest } = scope;
  const line = given.replace(/\s+/g, " ").trim();
  if (line === "") return rest;
  const why = line.length <= MAX_WHY_CHARS ? line : `${line.slice(0, MAX_WHY_CHARS - 1)}…`;
  return { ...rest, why };
}

/** An Approver that leaves every decision to a person: runs pause at calls that need approval. */
export const askApprover: Approver = {
  decide: async () => "ask",
};
