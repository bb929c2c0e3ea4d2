// Approvals of a durable run are durable waits: the run publishes what it waits on and receives the
// decision as a message, so a run paused in one process is decided, and finished, from another.
import type { AnyTool, ApprovalDecision, Approver } from "@bridle/core";
import type { DurableContext } from "./durable-context.js";
import type { AskRepeat } from "./durable-tool.js";
import type { JsonValue, PendingDurableApproval } from "./engine.js";

/** The key a run publishes its pending approvals under, and the topic a decision is sent on. */
export const PENDING_KEY = "bridle.pending_approvals";
export const decisionTopic = (toolCallId: string): string => `bridle.decision:${toolCallId}`;

/** One run's waits, in the order it asks them (one at a time: the harness asks in the model's order). */
export class DurableApprovals {
  readonly #context: DurableContext;
  readonly #autoApprove: boolean;

  constructor(context: DurableContext, autoApprove: boolean) {
    this.#context = context;
    this.#autoApprove = autoApprove;
  }

  /** The harness's approver: every call needing approval waits for a decision (unless auto-approved). */
  get approver(): Approver {
    return {
      decide: async (request) => {
        if (this.#autoApprove) return { approved: true, reason: "approved for every call (--yes)" };
        return this.#wait({
          toolCallId: request.toolCall.id,
          toolName: request.toolCall.name,
          args: json(request.args),
          kind: "approval",
          message: `${request.toolCall.name} needs approval`,
        });
      },
    };
  }

  /** A call that may already have run: always a person's decision, --yes or not. */
  readonly askRepeat: AskRepeat = async (tool: AnyTool, args: unknown, toolCallId: string) => {
    const decision = await this.#wait({
      toolCallId,
      toolName: tool.name,
      args: json(args),
      kind: "repeat",
      message: `${tool.name} had started when the process running it stopped and may have taken effect; it cannot tell. Run it again?`,
    });
    return decision.approved;
  };

  async #wait(pending: PendingDurableApproval): Promise<ApprovalDecision> {
    await this.#context.publish(PENDING_KEY, [pending]);
    const decision = await this.#context.receive<ApprovalDecision>(decisionTopic(pending.toolCallId));
    await this.#context.publish(PENDING_KEY, []);
    return decision.reason === undefined
      ? { approved: decision.approved === true }
      : { approved: decision.approved === true, reason: String(decision.reason) };
  }
}

function json(value: unknown): JsonValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}
