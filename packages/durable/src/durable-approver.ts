// Approvals of a durable run are durable waits: the run publishes what it waits on and takes the
// decision kept for it (decision-box.ts), so a run paused in one process is decided, and finished, from
// another. Both are sealed (seal.ts): what a person is shown is what the run recorded, and a decision
// names the exact arguments it approves, so a call edited in the database is never the one that runs.
import { type AnyTool, type ApprovalDecision, type Approver, BridleError } from "@bridle/core";
import type { DurableContext } from "./durable-context.js";
import type { AskRepeat } from "./durable-tool.js";
import type { JsonValue, PendingDurableApproval } from "./engine.js";
import { argsDigest } from "./seal.js";

/** The key a run publishes its pending approvals under. */
export const PENDING_KEY = "bridle.pending_approvals";

/** The topic a decision on `pending` is sent on: each repeat attempt has its own. */
export function decisionTopic(
  pending: Pick<PendingDurableApproval, "toolCallId" | "kind" | "attempt">,
): string {
  return pending.kind === "approval"
    ? `bridle.decision:${pending.toolCallId}`
    : `bridle.decision:${pending.toolCallId}:repeat:${pending.attempt ?? 1}`;
}

/** The seal scopes of a run's pending list and of a decision sent to it. */
export const pendingScope = (runId: string): string => `pending:${runId}`;
export const decisionScope = (runId: string, topic: string): string => `decision:${runId}:${topic}`;

/** A decision as sent: which call, which attempt and which arguments (by digest) it answers. */
export interface DecisionBody {
  readonly toolCallId: string;
  readonly kind: PendingDurableApproval["kind"];
  readonly attempt?: number;
  readonly args: string;
  readonly approved: boolean;
  readonly reason?: string;
}

/** What a run waits on, in a few words: "repeat 1 of bash (call c1)", "approval of bash (call c1)". */
export function describeWait(pending: PendingDurableApproval): string {
  const what = pending.kind === "repeat" ? `repeat ${pending.attempt ?? 1} of` : "approval of";
  return `${what} ${pending.toolName} (call ${pending.toolCallId})`;
}

/** Told when a run starts waiting for a person (the worker says so in one line). */
export type OnWaiting = (runId: string, pending: PendingDurableApproval) => void;

/** One run's waits, in the order it asks them (one at a time: the harness asks in the model's order). */
export class DurableApprovals {
  readonly #context: DurableContext;
  readonly #autoApprove: boolean;
  readonly #autoApproveRepeats: boolean;
  readonly #onWaiting: OnWaiting | undefined;

  constructor(
    context: DurableContext,
    options: { autoApprove: boolean; autoApproveRepeats: boolean; onWaiting?: OnWaiting },
  ) {
    this.#context = context;
    this.#autoApprove = options.autoApprove;
    this.#autoApproveRepeats = options.autoApproveRepeats;
    this.#onWaiting = options.onWaiting;
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

  /** A call that may already have run: a person's decision, unless the run was told repeats need none. */
  readonly askRepeat: AskRepeat = async (
    tool: AnyTool,
    args: unknown,
    toolCallId: string,
    attempt: number,
  ) => {
    if (this.#autoApproveRepeats) return { approved: true };
    return this.#wait({
      toolCallId,
      toolName: tool.name,
      args: json(args),
      kind: "repeat",
      attempt,
      message: `${tool.name} had started when the process running it stopped and may have taken effect; it cannot tell. Run it again?`,
    });
  };

  async #wait(pending: PendingDurableApproval): Promise<ApprovalDecision> {
    const { runId, seal } = this.#context;
    await this.#context.publish(PENDING_KEY, seal.seal(pendingScope(runId), [pending]));
    const topic = decisionTopic(pending);
    // A run on a worker's queue parks here (its slot goes to other runs) and continues once decided.
    const given = await this.#context.awaitDecision(topic, pending, () => this.#onWaiting?.(runId, pending));
    const decision = this.#context.open<DecisionBody>(
      decisionScope(runId, topic),
      given,
      `the decision on call ${pending.toolCallId}`,
    );
    if (
      decision.toolCallId !== pending.toolCallId ||
      decision.kind !== pending.kind ||
      decision.attempt !== pending.attempt ||
      decision.args !== argsDigest(JSON.stringify(pending.args))
    ) {
      throw this.#context.refuse(
        new BridleError(
          "envelope_tampered",
          `refused: the decision received for call ${pending.toolCallId} answers other arguments or another attempt than the call waiting; nothing was executed`,
        ),
      );
    }
    await this.#context.publish(PENDING_KEY, seal.seal(pendingScope(runId), []));
    return decision.reason === undefined
      ? { approved: decision.approved === true }
      : { approved: decision.approved === true, reason: String(decision.reason) };
  }
}

function json(value: unknown): JsonValue {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
}
