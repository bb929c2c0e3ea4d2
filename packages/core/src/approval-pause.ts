import type { PendingApproval } from "./approvals.js";
import type { ApprovalDecision } from "./approver.js";
import type { ToolCallPart } from "./messages.js";
import type { Model } from "./model.js";
import { type ApprovalEnvelope, sealEnvelope } from "./resume-envelope.js";
import type { RunContext } from "./run-context.js";

/** What a paused run hands its caller: the calls that wait, and the sealed envelope to resume them. */
export interface ApprovalPause {
  readonly pendingApprovals: readonly PendingApproval[];
  readonly resumeEnvelope: ApprovalEnvelope;
}

/**
 * Seals a run paused before a batch: its transcript (ending with the paused turn), the batch, the
 * decisions already made, counters and emitted warnings, and where its event sequence goes on. Sealed
 * after the terminal event, so the resumed stream's sequence starts right after it.
 */
export function sealPause(
  context: RunContext,
  model: Model,
  pause: {
    readonly calls: readonly ToolCallPart[];
    readonly pending: readonly PendingApproval[];
    readonly decided: ReadonlyMap<string, ApprovalDecision>;
    readonly toolset: string;
    readonly secret: string;
  },
): ApprovalPause {
  return {
    pendingApprovals: pause.pending,
    resumeEnvelope: sealEnvelope(
      {
        run: {
          runId: context.runId,
          ...context.identity,
          nextSeq: context.nextSeq,
          historyLength: context.historyLength,
        },
        origin: { provider: model.provider, model: model.model },
        messages: context.transcript.messages,
        batch: pause.calls.map((call) => call.id),
        pending: pause.pending.map((item) => item.toolCall.id),
        decided: Object.fromEntries(pause.decided),
        usage: context.usage(),
        warnings: [...context.emittedWarnings],
        toolset: pause.toolset,
      },
      pause.secret,
    ),
  };
}

/** The run's end message for a pause. */
export function pauseMessage(pending: readonly PendingApproval[]): string {
  const ids = pending.map((item) => item.toolCall.id).join(", ");
  return `the run paused: ${pending.length} call(s) await approval (${ids})`;
}
