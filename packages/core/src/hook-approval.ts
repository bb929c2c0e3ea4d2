import type { ApprovalAnswer, ApprovalDecision, Approver } from "./approver.js";
import { errorMessage } from "./errors.js";
import type { ToolCallPart } from "./messages.js";
import type { RunContext } from "./run-context.js";
import type { AnyTool } from "./tool.js";

/**
 * Calls a before_tool_call hook wants a person to approve (`requireApproval`). The batch's approvals are
 * settled before its calls run, so these are asked when the hooks are done, one at a time in the order
 * they come, with the hook's reason. An approver that answers by pausing the run cannot be used here
 * (calls of the batch may be running): the call is denied, saying so.
 */
export class HookApprovals {
  readonly #approver: Approver | undefined;
  readonly #context: RunContext;
  #turn: Promise<unknown> = Promise.resolve();

  constructor(approver: Approver | undefined, context: RunContext) {
    this.#approver = approver;
    this.#context = context;
  }

  /** The decision for one call; a refusal's reason is what the model is told. */
  ask(call: ToolCallPart, tool: AnyTool, args: unknown, reason: string): Promise<ApprovalDecision> {
    const asked = this.#turn.then(() => this.#decide(call, tool, args, reason));
    this.#turn = asked.catch(() => {});
    return asked;
  }

  async #decide(call: ToolCallPart, tool: AnyTool, args: unknown, reason: string): Promise<ApprovalDecision> {
    const approver = this.#approver;
    const context = this.#context;
    const why = `a hook asked for the user's approval (${reason})`;
    if (!approver) return { approved: false, reason: `${why} and no approver is configured for this run` };
    if (context.signal.aborted) return { approved: false, reason: "the run was aborted" };
    context.emit({ type: "approval_requested", toolCall: call });
    let answer: ApprovalAnswer;
    try {
      answer = await approver.decide(
        { runId: context.runId, toolCall: call, args, annotations: tool.annotations ?? {}, reason },
        context.signal,
      );
    } catch (error) {
      answer = { approved: false, reason: `approval could not be obtained: ${errorMessage(error)}` };
    }
    const decision: ApprovalDecision =
      answer === "ask"
        ? {
            approved: false,
            reason: `${why}, and this run asks by pausing, which it cannot do once calls are running`,
          }
        : answer.approved === true
          ? { approved: true }
          : { approved: false, reason: `${why}; ${answer.reason ?? "the call was not approved"}` };
    context.emit({ type: "approval_resolved", toolCallId: call.id, decision });
    return decision;
  }
}
