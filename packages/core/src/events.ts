import type { ApprovalDecision } from "./approver.js";
import type { AssistantMessage, Message, ToolCallPart, ToolResultMessage, UserMessage } from "./messages.js";
import type { ModelError, ModelStopReason, ModelWarning } from "./model.js";
import type { RequestSetup } from "./request-setup.js";
import type { RunUsage, Usage } from "./usage.js";

/** Why a run ended. Everything but "completed" arrives in a `run_failed` event. */
export type StopReason =
  | "completed"
  | "aborted"
  | "max_model_requests"
  | "max_tool_calls"
  | "tool_retries_exceeded"
  | "provider_error"
  /** A tool hit an infrastructure failure (a sandbox that will not start): not something the model can fix. */
  | "tool_error"
  /** The workspace instructions (AGENTS.md) exist but could not be read. */
  | "instructions_error"
  /** The run paused for approval but its resume envelope could not be sealed (the approval secret is unusable). */
  | "approval_secret_error"
  /** A bug or a broken contract inside the harness, or below it. */
  | "internal_error"
  | "hook_cancelled"
  | "approval_required"
  | "store_error"
  /** A hook threw while the harness ran in strict hook mode. */
  | "hook_failed"
  /** Structured output stayed invalid after the corrective turns `outputRetries` allows. */
  | "output_retries_exceeded"
  /**
   * The model's final answer (a turn with no tool calls) stopped at its output token limit: `finalText`
   * holds the part it wrote, which is incomplete. (Tool calls of a cut-off turn never run; the model is
   * told and the run goes on.)
   */
  | "max_tokens";

/** Fields every event carries. `seq` is the position in this run's stream, from 0. */
export interface EventBase {
  readonly runId: string;
  readonly seq: number;
  /** Milliseconds since the epoch. */
  readonly time: number;
  readonly sessionId?: string;
  readonly parentRunId?: string;
  readonly parentToolCallId?: string;
  readonly agentName?: string;
}

export interface RunStartedEvent extends EventBase {
  readonly type: "run_started";
  readonly provider: string;
  readonly model: string;
  /** The messages this run adds before its first model request (the prompt). */
  readonly messages: readonly Message[];
  /** How many messages of earlier history the run continues from. */
  readonly historyLength: number;
  /** Set when this stream continues a run that paused for approval (same run id, sequence continues). */
  readonly resumed?: "approval";
}

export interface ModelRequestEvent extends EventBase {
  readonly type: "model_request";
  /** 1 for the run's first request. */
  readonly request: number;
  readonly messageCount: number;
  readonly toolNames: readonly string[];
  /**
   * The system prompt and tools this request sent, present only when they differ from the last ones the
   * harness recorded for this session and agent: a session holds them once per change.
   */
  readonly setup?: RequestSetup;
}

export interface TextDeltaEvent extends EventBase {
  readonly type: "text_delta";
  readonly delta: string;
}

export interface ReasoningDeltaEvent extends EventBase {
  readonly type: "reasoning_delta";
  readonly delta: string;
}

/** One complete model turn, appended to the transcript. */
export interface ModelResponseEvent extends EventBase {
  readonly type: "model_response";
  readonly request: number;
  readonly message: AssistantMessage;
  readonly usage: Usage;
  readonly stopReason: ModelStopReason;
  readonly durationMs: number;
}

/**
 * A tool call as the model streams it, before the turn is complete: its name as soon as it is known, then
 * its argument text in coalesced pieces (so a UI can show `edit_file src/cart.js …` early). Only for
 * watching: the transcript ignores it, and `tool_call_requested` carries the whole call. The streamed
 * argument text is bounded per call; past the bound, the rest is not streamed (`clipped`).
 */
export interface ToolCallDeltaEvent extends EventBase {
  readonly type: "tool_call_delta";
  /** The call's position among the turn's calls, from 0. */
  readonly index: number;
  /** The provider's call id, once known (the recorded call may get another if it was missing or reused). */
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly argumentsDelta: string;
  /** Set on the last delta of a call whose argument text passed the bound: the rest is not streamed. */
  readonly clipped?: true;
}

/** Recorded before the call executes. `toolCall.arguments` is the model's raw JSON. */
export interface ToolCallRequestedEvent extends EventBase {
  readonly type: "tool_call_requested";
  readonly toolCall: ToolCallPart;
  /** Repairs applied to the arguments (for example "filePath→path"), if any. */
  readonly repairs: readonly string[];
}

export interface ToolProgressEvent extends EventBase {
  readonly type: "tool_progress";
  readonly toolCallId: string;
  readonly toolName: string;
  readonly data: unknown;
}

/** A call's result, appended to the transcript. Every one has a preceding tool_call_requested. */
export interface ToolCallCompletedEvent extends EventBase {
  readonly type: "tool_call_completed";
  readonly result: ToolResultMessage;
  readonly durationMs: number;
}

export interface ApprovalRequestedEvent extends EventBase {
  readonly type: "approval_requested";
  readonly toolCall: ToolCallPart;
}

export interface ApprovalResolvedEvent extends EventBase {
  readonly type: "approval_resolved";
  readonly toolCallId: string;
  readonly decision: ApprovalDecision;
}

/** A hook handler threw. In strict hook mode the run then ends with stop reason "hook_failed". */
export interface HookFailedEvent extends EventBase {
  readonly type: "hook_failed";
  readonly hook: string;
  /** The hook's `name`, when it has one. */
  readonly hookName?: string;
  readonly message: string;
}

/**
 * Structured output was missing or invalid; the model is asked again. `message` is the corrective user
 * message that joins the transcript (absent in tool mode, where the final_result call's result says it).
 */
export interface OutputRetryEvent extends EventBase {
  readonly type: "output_retry";
  /** 1 for the first corrective turn. */
  readonly attempt: number;
  readonly problems: readonly string[];
  readonly message?: Message;
}

/**
 * How a user message queued during a run joins it: "steer" at the next safe point (after the current tool
 * batch settles, before the next model request); "follow_up" only when the run would otherwise end, which
 * it then continues.
 */
export type UserMessageDelivery = "steer" | "follow_up";

/** A caller queued a user message while the run was going. It joins the transcript when delivered. */
export interface UserMessageQueuedEvent extends EventBase {
  readonly type: "user_message_queued";
  /** Names the message across runs: a message queued in one run and delivered in a later one keeps it. */
  readonly queueId: string;
  readonly delivery: UserMessageDelivery;
  readonly message: UserMessage;
}

/** A queued user message joins the transcript here: the model sees it on its next request. */
export interface UserMessageDeliveredEvent extends EventBase {
  readonly type: "user_message_delivered";
  readonly queueId: string;
  readonly delivery: UserMessageDelivery;
  readonly message: UserMessage;
}

/**
 * An observer of the run (a tracer, a UI, a recorder) threw or rejected. The run goes on; each observer's
 * first failure is reported, later ones are not.
 */
export interface ObserverFailedEvent extends EventBase {
  readonly type: "observer_failed";
  /** The observer's `name`, or its position among the run's observers. */
  readonly observer: string;
  readonly message: string;
}

/**
 * The model adapter reported something it could not do or does not know (an unknown model, a setting it
 * cannot honour). Once per run for each distinct warning; never ends the run.
 */
export interface ModelWarningEvent extends EventBase {
  readonly type: "model_warning";
  readonly code: ModelWarning["code"];
  readonly message: string;
}

/**
 * The provider failed an attempt and the adapter will try again after `delayMs` (a rate limit, a server
 * error, a stream that went quiet), so a waiting user sees why nothing arrives. Not in the transcript.
 */
export interface ModelRetryEvent extends EventBase {
  readonly type: "model_retry";
  /** The attempt about to start, from 2 (the first attempt is 1). */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly delayMs: number;
  readonly error: ModelError;
}

/** A near-limit notice; `message` is what the model is told, and it joins the transcript. */
export interface LimitWarningEvent extends EventBase {
  readonly type: "limit_warning";
  readonly limit: "model_requests" | "tool_calls";
  readonly used: number;
  readonly max: number;
  readonly message: Message;
}

/** The transcript before `replacedCount` messages was replaced by `summary`. */
export interface CompactionEvent extends EventBase {
  readonly type: "compaction";
  readonly replacedCount: number;
  readonly summary: Message;
  readonly tokensBefore?: number;
  /** Why it happened: the threshold share of the context window, or a provider's context overflow. */
  readonly reason?: "threshold" | "overflow";
  /** Tokens the summary request used (already counted in the run's usage). */
  readonly usage?: Usage;
}

/**
 * A fact an extension records on the run's stream through a hook's `record` (a repository baseline, a
 * check's outcome, a plan): persisted and replayed like every other event. `kind` is namespaced by the
 * extension ("coding.baseline"); `data` is plain JSON.
 */
export interface FactEvent extends EventBase {
  readonly type: "fact";
  readonly kind: string;
  readonly data: unknown;
}

export interface RunCompletedEvent extends EventBase {
  readonly type: "run_completed";
  readonly stopReason: "completed";
  readonly finalText: string;
  readonly usage: RunUsage;
  /** The validated structured output, when the harness has an output schema. */
  readonly output?: unknown;
}

export interface RunFailedEvent extends EventBase {
  readonly type: "run_failed";
  readonly stopReason: Exclude<StopReason, "completed">;
  readonly error: { readonly code: string; readonly message: string; readonly modelError?: ModelError };
  readonly usage: RunUsage;
}

/**
 * Never emitted by a run: what a session store's `read` yields in place of an entry it could not read
 * back (a line or row that does not parse), so the damage is seen where it happened. It carries the
 * neighbouring entry's run id and time (its own are unreadable) and `seq` -1: it is no run's position.
 */
export interface StoreDamageEvent extends EventBase {
  readonly type: "store_damage";
  readonly message: string;
}

export type RunEvent =
  | RunStartedEvent
  | ModelRequestEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ModelResponseEvent
  | ToolCallDeltaEvent
  | ToolCallRequestedEvent
  | ToolProgressEvent
  | ToolCallCompletedEvent
  | ApprovalRequestedEvent
  | ApprovalResolvedEvent
  | LimitWarningEvent
  | ModelWarningEvent
  | ModelRetryEvent
  | HookFailedEvent
  | OutputRetryEvent
  | CompactionEvent
  | FactEvent
  | UserMessageQueuedEvent
  | UserMessageDeliveredEvent
  | ObserverFailedEvent
  | RunCompletedEvent
  | RunFailedEvent
  | StoreDamageEvent;

export type RunEventType = RunEvent["type"];

/** An event before the loop stamps it with run id, sequence and time. */
export type RunEventBody = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, keyof EventBase>
    : never
  : never;

export function isTerminalEvent(event: RunEvent): event is RunCompletedEvent | RunFailedEvent {
  return event.type === "run_completed" || event.type === "run_failed";
}
