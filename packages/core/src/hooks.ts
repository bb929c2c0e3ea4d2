import type { BeforeCompactionInput } from "./compaction-hook.js";
import { errorMessage } from "./errors.js";
import type { StopReason } from "./events.js";
import type { Message, ToolCallPart, ToolResultContent, ToolResultMessage } from "./messages.js";
import type { RunUsage } from "./usage.js";

/** Fields every hook input carries: what a handler is told about the run it runs in. */
export interface HookInputBase {
  readonly runId: string;
  /** The session the run belongs to, when it has one. */
  readonly sessionId?: string;
  /** The agent running this harness, when it has a name. */
  readonly agentName?: string;
  /**
   * Record a fact on the run's event stream (a `fact` event of this kind). Facts recorded by run_start
   * and user_prompt_submit handlers follow run_started. Always set on inputs the harness builds.
   */
  readonly record?: (kind: string, data: unknown) => void;
}

export interface RunStartInput extends HookInputBase {
  readonly prompt: readonly Message[];
  readonly historyLength: number;
  /** True when the run continues after an approval pause. */
  readonly resumed: boolean;
}

export interface UserPromptSubmitInput extends HookInputBase {
  readonly prompt: readonly Message[];
  /** Add text the model sees right after the prompt (retrieved notes, the date, repository facts). */
  addContext(text: string): void;
  /** End the run before any model request, with stop reason "hook_cancelled". */
  cancel(reason: string): void;
}

export interface BeforeToolCallInput extends HookInputBase {
  readonly toolCall: ToolCallPart;
  /** The validated (and repaired) arguments the tool would receive. */
  readonly args: unknown;
  /** Skip the call: the model sees a Denied result carrying the reason. */
  cancel(reason: string): void;
  /**
   * Run the tool with these arguments instead (a hook script's `updatedInput`). They are validated
   * against the tool's schema like the model's; later hooks see them as `args`.
   */
  replaceArgs(args: unknown): void;
  /**
   * Have a person approve this call before it runs, shown `reason` (a hook script's
   * `permissionDecision: "ask"`). The run's approver is asked once the hooks are done, even when the call
   * was approved already or needed no approval; without a person to ask, the call is denied.
   */
  requireApproval(reason: string): void;
}

export interface AfterToolCallInput extends HookInputBase {
  readonly toolCall: ToolCallPart;
  readonly args: unknown;
  /** The result as the tool produced it, or as an earlier hook rewrote it. */
  readonly result: ToolResultMessage;
  /** Whether the result counts against the tool's retry budget; decided before any rewrite. */
  readonly retryable: boolean;
  /** Replace what the model sees (redaction, summarizing). `details` and retry accounting are kept. */
  rewrite(content: string | readonly ToolResultContent[]): void;
}

export interface BeforeSubagentRunInput extends HookInputBase {
  /** The subagent about to run. */
  readonly subagent: string;
  readonly prompt: string;
  /** The parent's tool call that starts the subagent. */
  readonly toolCallId?: string;
  cancel(reason: string): void;
}

export interface AfterSubagentRunInput extends HookInputBase {
  readonly subagent: string;
  readonly toolCallId?: string;
  readonly stopReason: StopReason;
  readonly finalText: string;
}

export type ReachedLimit =
  | "max_model_requests"
  | "max_tool_calls"
  | "tool_retries_exceeded"
  | "output_retries_exceeded";

export interface LimitReachedInput extends HookInputBase {
  readonly limit: ReachedLimit;
  readonly message: string;
  readonly usage: RunUsage;
}

/**
 * The model gave a final answer and the run would complete (nothing queued keeps it going): a handler may
 * keep it going instead (Claude Code's Stop hook). Not fired when the run ends any other way.
 */
export interface BeforeStopInput extends HookInputBase {
  /** The answer that would end the run. */
  readonly finalText: string;
  /** True when an earlier before_stop handler of this run already kept it going. */
  readonly continued: boolean;
  /**
   * Keep the run going: `message` joins the transcript as a follow-up user message and the model answers
   * it. Bounded by the run's model-request limit like any other turn.
   */
  continueWith(message: string): void;
}

export interface RunEndInput extends HookInputBase {
  readonly stopReason: StopReason;
  readonly finalText: string;
  readonly usage: RunUsage;
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * The input each hook event's handlers receive (a hook's payload; Claude Code calls it the hook input).
 * "Context" in Bridle means only what the model sees: its context window.
 */
export interface HookInputs {
  run_start: RunStartInput;
  user_prompt_submit: UserPromptSubmitInput;
  before_tool_call: BeforeToolCallInput;
  after_tool_call: AfterToolCallInput;
  before_subagent_run: BeforeSubagentRunInput;
  after_subagent_run: AfterSubagentRunInput;
  limit_reached: LimitReachedInput;
  before_stop: BeforeStopInput;
  before_compaction: BeforeCompactionInput;
  run_end: RunEndInput;
}

export type HookEventName = keyof HookInputs;

// The names from before "context" kept a single meaning (what the model sees); kept for one release.
/** @deprecated use HookInputBase */
export type HookContextBase = HookInputBase;
/** @deprecated use HookInputs */
export type HookContexts = HookInputs;
/** @deprecated use RunStartInput */
export type RunStartContext = RunStartInput;
/** @deprecated use UserPromptSubmitInput */
export type UserPromptSubmitContext = UserPromptSubmitInput;
/** @deprecated use BeforeToolCallInput */
export type BeforeToolCallContext = BeforeToolCallInput;
/** @deprecated use AfterToolCallInput */
export type AfterToolCallContext = AfterToolCallInput;
/** @deprecated use BeforeSubagentRunInput */
export type BeforeSubagentRunContext = BeforeSubagentRunInput;
/** @deprecated use AfterSubagentRunInput */
export type AfterSubagentRunContext = AfterSubagentRunInput;
/** @deprecated use LimitReachedInput */
export type LimitReachedContext = LimitReachedInput;
/** @deprecated use RunEndInput */
export type RunEndContext = RunEndInput;

export const hookEventNames: readonly HookEventName[] = [
  "run_start",
  "user_prompt_submit",
  "before_tool_call",
  "after_tool_call",
  "before_subagent_run",
  "after_subagent_run",
  "limit_reached",
  "before_stop",
  "before_compaction",
  "run_end",
];

const TOOL_EVENTS = new Set<HookEventName>(["before_tool_call", "after_tool_call"]);
const SUBAGENT_EVENTS = new Set<HookEventName>(["before_subagent_run", "after_subagent_run"]);

export interface Hook<E extends HookEventName = HookEventName> {
  readonly event: E;
  readonly handler: (input: HookInputs[E]) => void | Promise<void>;
  /** Shown in `hook_failed` events. */
  readonly name?: string;
  /** Tool events only: run for calls to these tools (all tools when absent). */
  readonly tools?: readonly string[];
  /** Subagent events only: run for these subagents (all when absent). */
  readonly agents?: readonly string[];
}

/** A hook for any event: what a harness holds. */
export type AnyHook = { [E in HookEventName]: Hook<E> }[HookEventName];

/** Identity helper that types the handler's input from the event name. */
export function defineHook<E extends HookEventName>(hook: Hook<E>): Hook<E> {
  return hook;
}

export interface HookFailure {
  readonly hook: HookEventName;
  readonly hookName?: string;
  readonly message: string;
}

/**
 * The registered hooks of one harness. Dispatch is ordered and awaited one handler at a time, so an
 * earlier hook's cancel or rewrite is settled before the next one runs. A handler that cancels stops the
 * dispatch (later handlers would only see a cancelled call). A handler that throws is reported; in strict
 * mode the dispatch stops there and the caller fails the run.
 */
export class HookRunner {
  readonly strict: boolean;
  readonly #byEvent = new Map<HookEventName, AnyHook[]>();

  constructor(hooks: readonly AnyHook[] = [], strict = false) {
    this.strict = strict;
    for (const hook of hooks) {
      if (!hookEventNames.includes(hook.event)) throw new TypeError(`unknown hook event "${hook.event}"`);
      const list = this.#byEvent.get(hook.event) ?? [];
      list.push(hook);
      this.#byEvent.set(hook.event, list);
    }
  }

  has(event: HookEventName): boolean {
    return (this.#byEvent.get(event)?.length ?? 0) > 0;
  }

  /**
   * Runs the handlers for `event` whose filters match. `subject` is the tool name (tool events) or the
   * subagent name (subagent events). Returns the failure that must fail the run (strict mode only).
   */
  async dispatch<E extends HookEventName>(
    event: E,
    input: HookInputs[E],
    options: {
      readonly subject?: string;
      readonly report: (failure: HookFailure) => void;
      readonly stopped?: () => boolean;
    },
  ): Promise<HookFailure | undefined> {
    const hooks = this.#byEvent.get(event);
    if (!hooks) return undefined;
    for (const hook of hooks) {
      if (!matches(hook, event, options.subject)) continue;
      // The list for `event` holds only hooks registered for it, so the handler takes this input.
      const handler = hook.handler as (input: HookInputs[E]) => void | Promise<void>;
      try {
        await handler(input);
      } catch (error) {
        const failure: HookFailure = {
          hook: event,
          ...(hook.name ? { hookName: hook.name } : {}),
          message: errorMessage(error),
        };
        options.report(failure);
        if (this.strict) return failure;
      }
      if (options.stopped?.()) break;
    }
    return undefined;
  }
}

function matches(hook: AnyHook, event: HookEventName, subject: string | undefined): boolean {
  if (TOOL_EVENTS.has(event) && hook.tools) return subject !== undefined && hook.tools.includes(subject);
  if (SUBAGENT_EVENTS.has(event) && hook.agents) {
    return subject !== undefined && hook.agents.includes(subject);
  }
  return true;
}

/** A cancel switch a hook input exposes; the first reason wins. */
export class CancelSwitch {
  #reason: string | undefined;

  cancel = (reason: string): void => {
    this.#reason ??= reason.trim() === "" ? "cancelled by a hook" : reason;
  };

  get cancelled(): boolean {
    return this.#reason !== undefined;
  }

  get reason(): string | undefined {
    return this.#reason;
  }
}

export type SubagentRunVerdict =
  | { readonly cancelled: false }
  | { readonly cancelled: true; readonly reason: string };

/**
 * What a tool that starts a subagent gets through `ToolCallEnv.hooks`: the parent run's subagent hooks.
 * In strict mode a throwing hook makes `beforeSubagentRun` answer cancelled, and the parent run ends with
 * "hook_failed" once the call returns.
 */
export interface SubagentHooks {
  beforeSubagentRun(input: {
    readonly subagent: string;
    readonly prompt: string;
    readonly toolCallId?: string;
  }): Promise<SubagentRunVerdict>;
  afterSubagentRun(input: {
    readonly subagent: string;
    readonly toolCallId?: string;
    readonly stopReason: StopReason;
    readonly finalText: string;
  }): Promise<void>;
}

/** One run's view of the hooks: the run's identity, where failures are reported, the strict failure. */
export class RunHooks implements SubagentHooks {
  readonly runner: HookRunner;
  readonly #base: HookInputBase;
  readonly #report: (failure: HookFailure) => void;
  #strictFailure: HookFailure | undefined;

  constructor(runner: HookRunner, base: HookInputBase, report: (failure: HookFailure) => void) {
    this.runner = runner;
    this.#base = base;
    this.#report = report;
  }

  /** The first failure that must fail the run (strict mode), if any. */
  get strictFailure(): HookFailure | undefined {
    return this.#strictFailure;
  }

  get base(): HookInputBase {
    return this.#base;
  }

  async fire<E extends HookEventName>(
    event: E,
    fields: Omit<HookInputs[E], keyof HookInputBase>,
    options: { readonly subject?: string; readonly stopped?: () => boolean } = {},
  ): Promise<HookFailure | undefined> {
    if (!this.runner.has(event)) return undefined;
    // Property descriptors, not a spread: an input may expose getters (after_tool_call's `result`).
    const input = Object.defineProperties(
      { ...this.#base },
      Object.getOwnPropertyDescriptors(fields),
    ) as HookInputs[E];
    const failure = await this.runner.dispatch(event, input, { ...options, report: this.#report });
    this.#strictFailure ??= failure;
    return failure;
  }

  async beforeSubagentRun(input: {
    readonly subagent: string;
    readonly prompt: string;
    readonly toolCallId?: string;
  }): Promise<SubagentRunVerdict> {
    const gate = new CancelSwitch();
    const failure = await this.fire(
      "before_subagent_run",
      { ...input, cancel: gate.cancel },
      { subject: input.subagent, stopped: () => gate.cancelled },
    );
    if (failure) return { cancelled: true, reason: `a before_subagent_run hook failed: ${failure.message}` };
    return gate.reason === undefined ? { cancelled: false } : { cancelled: true, reason: gate.reason };
  }

  async afterSubagentRun(input: {
    readonly subagent: string;
    readonly toolCallId?: string;
    readonly stopReason: StopReason;
    readonly finalText: string;
  }): Promise<void> {
    await this.fire("after_subagent_run", input, { subject: input.subagent });
  }
}
