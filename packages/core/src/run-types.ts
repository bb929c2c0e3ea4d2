import type { PendingApproval } from "./approvals.js";
import type { RunEvent, StopReason } from "./events.js";
import type { ContinueSource } from "./history.js";
import type { Message, UserMessage } from "./messages.js";
import type { ModelError } from "./model.js";
import type { EventObserver } from "./observers.js";
import type { ApprovalEnvelope } from "./resume-envelope.js";
import type { EventSink, RunIdentity } from "./run-context.js";
import type { RunUsage } from "./usage.js";
import type { QueuedMessage } from "./user-queue.js";

/** Where a run's events go besides its stream, and what it starts with queued. */
interface RunOutletOptions {
  readonly signal?: AbortSignal;
  /** The run's record (a session store): events are recorded as they happen, calls before they execute. */
  readonly sink?: EventSink;
  /** Watchers that never end the run (tracing, a UI, an eval recorder); see `RunOutlets` for the order. */
  readonly observers?: readonly EventObserver[];
  /**
   * User messages queued before the run started, delivered as if queued on it (messages an earlier run
   * never delivered: `undeliveredMessages` reads them from a session's events).
   */
  readonly queued?: readonly QueuedMessage[];
}

export interface RunInput extends Omit<RunIdentity, "agentName">, RunOutletOptions {
  /** The new user turn: text, a user message, or several messages. */
  readonly prompt: string | UserMessage | readonly Message[];
  /**
   * Earlier conversation this run continues (a resumed session's transcript). Calls in it that never got
   * a result are answered `Cancelled`, so a history cut short never blocks the thread.
   */
  readonly history?: readonly Message[];
  /**
   * Continue after a completed run (its result, or anything with its `stopReason` and `messages`): the
   * provider-neutral transcript is the resume state, so the new turn may run on another provider.
   */
  readonly continueFrom?: ContinueSource;
}

/** Options of `resumeApprovals`: the resumed stream's signal, record, observers and queued messages. */
export interface ResumeOptions extends RunOutletOptions {}

export interface RunResult<O = unknown> {
  readonly runId: string;
  readonly stopReason: StopReason;
  /** Text of the last assistant message. */
  readonly finalText: string;
  /**
   * The whole transcript: history, then what this run added. After an approval pause it ends with the
   * paused turn, whose calls have no results yet (resume the envelope to answer them).
   */
  readonly messages: readonly Message[];
  readonly usage: RunUsage;
  readonly error?: { readonly code: string; readonly message: string; readonly modelError?: ModelError };
  /** The validated structured output (only with an output spec, on a completed run). */
  readonly output?: O;
  /** With stop reason "approval_required": the calls that wait for a decision. */
  readonly pendingApprovals?: readonly PendingApproval[];
  /** With stop reason "approval_required": store it (it is plain JSON) and pass it to `resumeApprovals`. */
  readonly resumeEnvelope?: ApprovalEnvelope;
  /** User messages queued on the run that it ended without delivering (pass them as the next run's `queued`). */
  readonly undelivered?: readonly QueuedMessage[];
}

/** A running run: iterate it for events (once), or await `result`. Breaking out of the loop aborts the run. */
export interface RunStream<O = unknown> extends AsyncIterable<RunEvent> {
  readonly runId: string;
  readonly result: Promise<RunResult<O>>;
  abort(reason?: unknown): void;
  /**
   * Queue a user message for the model's next request. It is delivered at the next safe point: after the
   * current tool batch settles (never between a call and its result), before the next model request; a
   * run that would end continues with it. Returns its queue id. Throws a BridleError ("run_ended") once
   * the run is ending.
   */
  steer(message: string | UserMessage): string;
  /**
   * Queue a user message for when the run would otherwise end: the run then continues with it (all
   * follow-ups queued by then arrive together). Returns its queue id; throws like `steer`.
   */
  followUp(message: string | UserMessage): string;
}
