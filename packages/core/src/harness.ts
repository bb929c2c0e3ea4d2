import { loadOrCreateApprovalSecret } from "./approval-secret.js";
import type { ApprovalDecisions, PendingApproval } from "./approvals.js";
import type { Approver } from "./approver.js";
import { type BatchOutcome, runBatch, type SettledApproval } from "./batch.js";
import { findCutPoint, summarize, summaryMessage, worthCompacting } from "./compaction.js";
import { type ContextOptions, type ContextSettings, ContextTracker, contextSettings } from "./context.js";
import { BridleError, errorMessage } from "./errors.js";
import type { RunEvent, StopReason } from "./events.js";
import { failureText } from "./failure-text.js";
import { closeDanglingCalls, type ResumeSource, resumeHistory } from "./history.js";
import {
  type AnyHook,
  CancelSwitch,
  type HookFailure,
  HookRunner,
  type ReachedLimit,
  RunHooks,
} from "./hooks.js";
import { readWorkspaceInstructions, withInstructions } from "./instructions.js";
import { crossedThresholds, type HarnessLimits, type HarnessLimitsInput, limitsSchema } from "./limits.js";
import {
  type AssistantMessage,
  type Message,
  type ToolCallPart,
  type ToolResultMessage,
  textOf,
  type UserMessage,
  userText,
} from "./messages.js";
import type { Model, ModelError, ModelEvent, ModelOptions, ModelStopReason, ToolSchema } from "./model.js";
import { FINAL_RESULT_TOOL, OutputPlan, type OutputSpec } from "./output.js";
import { type ApprovalEnvelope, openEnvelope, sealEnvelope, toolsetDigest } from "./resume-envelope.js";
import { type EventSink, RunContext, type RunIdentity, type RunRestore } from "./run-context.js";
import { toolSchemaOf } from "./schema.js";
import { spillResult } from "./spill.js";
import { estimateTextTokens } from "./token-estimate.js";
import type { AnyTool } from "./tool.js";
import { failureResult } from "./tool-call.js";
import { emptyUsage, type RunUsage, type Usage } from "./usage.js";
import { Workspace } from "./workspace.js";

export interface HarnessOptions<O = unknown> {
  readonly model: Model;
  readonly tools?: readonly AnyTool[];
  readonly system?: string;
  /** The workspace tools act in: a Workspace, or a folder path. Defaults to the current directory. */
  readonly workspace?: Workspace | string;
  readonly limits?: HarnessLimitsInput;
  readonly approver?: Approver;
  readonly modelOptions?: ModelOptions;
  readonly agentName?: string;
  /** Lifecycle hooks, dispatched in this order for each event. */
  readonly hooks?: readonly AnyHook[];
  /** A hook that throws fails the run ("hook_failed") instead of only being reported. */
  readonly strictHooks?: boolean;
  /** Structured output: how the final answer is asked for and validated. */
  readonly output?: OutputSpec<O>;
  /**
   * Approval envelopes are sealed with HMAC-SHA256 under this secret, so that only holders of the secret
   * can produce an envelope this harness accepts. Without it, the user's own secret is used, generated on
   * the first pause or resume (`loadOrCreateApprovalSecret`).
   */
  readonly approvalSecret?: string;
  /**
   * Context management: compaction near the context window (and once after a provider's context
   * overflow), spilling large tool results to files, workspace instructions (AGENTS.md). Only spilling is
   * on by default.
   */
  readonly context?: ContextOptions;
}

export interface RunInput extends Omit<RunIdentity, "agentName"> {
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
  readonly resumeFrom?: ResumeSource;
  readonly signal?: AbortSignal;
  /** Records events as they happen; calls are recorded before they execute. */
  readonly sink?: EventSink;
}

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
}

/** Options of `resumeApprovals`: the resumed stream's signal and sink. */
export interface ResumeOptions {
  readonly signal?: AbortSignal;
  readonly sink?: EventSink;
}

/** A running run: iterate it for events (once), or await `result`. Breaking out of the loop aborts the run. */
export interface RunStream<O = unknown> extends AsyncIterable<RunEvent> {
  readonly runId: string;
  readonly result: Promise<RunResult<O>>;
  abort(reason?: unknown): void;
}

/** Where a run starts: a new prompt, or a batch that paused for approval. */
type RunStart =
  | { readonly kind: "prompt"; readonly prompt: readonly Message[] }
  | {
      readonly kind: "approval";
      readonly calls: readonly ToolCallPart[];
      readonly decisions: ReadonlyMap<string, SettledApproval>;
    };

interface RunState {
  readonly context: RunContext;
  readonly hooks: RunHooks;
  output?: { readonly value: unknown };
  /** #finish has started: nothing may end the run a second time. */
  ended: boolean;
  /** The terminal event is out. */
  terminated?: boolean;
  /** The system prompt this run sends (workspace instructions and output instructions included). */
  system?: string;
  /** The transcript's token count, when compaction is on. */
  readonly tracker?: ContextTracker;
  /** The last model turn stopped at max_tokens: its tool calls are answered as truncated, never run. */
  truncated?: boolean;
}

type CompactionOutcome = "compacted" | "aborted" | { readonly failed: string };

interface TurnOutcome {
  readonly message?: AssistantMessage;
  readonly usage?: Usage;
  readonly stopReason?: ModelStopReason;
  readonly error?: ModelError;
}

/**
 * Long-lived, reusable configuration: a model, tools, limits and policy. Each `run`/`stream` call gets its
 * own RunContext, so runs never share state.
 */
export class Harness<O = unknown> {
  readonly model: Model;
  readonly workspace: Workspace;
  readonly limits: HarnessLimits;
  readonly #options: HarnessOptions<O>;
  readonly #tools = new Map<string, AnyTool>();
  readonly #schemas: readonly ToolSchema[];
  /** What the model is offered: the tools, plus final_result in tool output mode. */
  readonly #modelSchemas: readonly ToolSchema[];
  readonly #toolset: string;
  readonly #hooks: HookRunner;
  readonly #output: OutputPlan;
  readonly #resumedEnvelopes = new Set<string>();
  #userSecret: string | undefined;
  readonly #context: ContextSettings;
  /** Estimated tokens of what every request carries besides the messages: the tool schemas. */
  readonly #schemaTokens: number;

  constructor(options: HarnessOptions<O>) {
    this.#options = options;
    this.model = options.model;
    this.workspace =
      options.workspace instanceof Workspace
        ? options.workspace
        : new Workspace(options.workspace ?? process.cwd());
    const parsed = limitsSchema.safeParse(options.limits ?? {});
    if (!parsed.success) {
      throw new BridleError(
        "invalid_config",
        `invalid limits: ${parsed.error.issues.map((i) => i.message).join("; ")}`,
      );
    }
    this.limits = parsed.data;
    if (
      options.approvalSecret !== undefined &&
      (typeof options.approvalSecret !== "string" || options.approvalSecret.length === 0)
    ) {
      throw new BridleError(
        "invalid_config",
        "approvalSecret must be a non-empty string (omit it to use the user's own)",
      );
    }
    this.#context = contextSettings(options.context);
    for (const tool of options.tools ?? []) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(tool.name)) {
        throw new BridleError("invalid_config", `tool name "${tool.name}" must match ^[A-Za-z0-9_-]{1,64}$`);
      }
      if (this.#tools.has(tool.name))
        throw new BridleError("duplicate_tool", `two tools are named "${tool.name}"`);
      this.#tools.set(tool.name, tool);
    }
    this.#schemas = [...this.#tools.values()].map(toolSchemaOf);
    this.#toolset = toolsetDigest(this.#schemas);
    this.#output = new OutputPlan(options.output);
    const finalResult = this.#output.toolSchema();
    if (finalResult && this.#tools.has(FINAL_RESULT_TOOL)) {
      throw new BridleError(
        "invalid_config",
        `a tool is named "${FINAL_RESULT_TOOL}", which tool output mode reserves for the final answer`,
      );
    }
    this.#modelSchemas = finalResult ? [...this.#schemas, finalResult] : this.#schemas;
    this.#schemaTokens = this.#context.compaction
      ? estimateTextTokens(JSON.stringify(this.#modelSchemas))
      : 0;
    try {
      this.#hooks = new HookRunner(options.hooks ?? [], options.strictHooks ?? false);
    } catch (error) {
      throw new BridleError("invalid_config", errorMessage(error));
    }
  }

  get tools(): readonly AnyTool[] {
    return [...this.#tools.values()];
  }

  /** The tool schemas of the harness's tools (the harness-owned final_result is not among them). */
  get toolSchemas(): readonly ToolSchema[] {
    return this.#schemas;
  }

  /** Run to the end and return the result. Never throws for run failures: see `stopReason`. */
  async run(input: RunInput): Promise<RunResult<O>> {
    return drain(this.stream(input));
  }

  /**
   * Start a run now and stream its events. Throws a BridleError ("invalid_resume") before starting when
   * `resumeFrom` is not a completed run or comes with `history`.
   */
  stream(input: RunInput): RunStream<O> {
    if (input.resumeFrom && input.history) {
      throw new BridleError("invalid_resume", "give either history or resumeFrom, not both");
    }
    const history = closeDanglingCalls(
      input.resumeFrom ? resumeHistory(input.resumeFrom) : (input.history ?? []),
    );
    return this.#start(input, history, input, { kind: "prompt", prompt: promptMessages(input.prompt) });
  }

  /**
   * Resume a run that paused with stop reason "approval_required". `decisions` must cover exactly the
   * pending call ids; approved calls run once, rejected ones get an ApprovalRejected result, and the other
   * calls of the batch run normally. Works in any process with an equally configured harness. Throws a
   * BridleError before anything runs when the envelope or the decisions are refused (see `openEnvelope`).
   */
  resumeApprovals(
    envelope: unknown,
    decisions: ApprovalDecisions,
    options: ResumeOptions = {},
  ): RunStream<O> {
    const opened = openEnvelope(envelope, decisions, {
      toolset: this.#toolset,
      secret: this.#approvalSecret(),
    });
    const { run, messages, usage, warnings, integrity } = opened.envelope;
    // A second resume of the same pause would run the approved calls again. Across processes, the
    // application keeps that record (the session store shows the resumed run's events).
    if (this.#resumedEnvelopes.has(integrity)) {
      throw new BridleError(
        "envelope_already_resumed",
        `run ${run.runId} was already resumed from this envelope by this harness`,
      );
    }
    this.#resumedEnvelopes.add(integrity);
    const identity: RunIdentity = {
      runId: run.runId,
      ...(run.sessionId ? { sessionId: run.sessionId } : {}),
      ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
      ...(run.parentToolCallId ? { parentToolCallId: run.parentToolCallId } : {}),
    };
    return this.#start(
      { ...identity, ...options },
      messages,
      identity,
      { kind: "approval", calls: opened.calls, decisions: opened.decisions },
      { nextSeq: run.nextSeq, usage, warnings },
    );
  }

  /** `resumeApprovals`, run to the end. */
  resume(
    envelope: unknown,
    decisions: ApprovalDecisions,
    options: ResumeOptions = {},
  ): Promise<RunResult<O>> {
    return drain(this.resumeApprovals(envelope, decisions, options));
  }

  #start(
    input: { readonly signal?: AbortSignal; readonly sink?: EventSink },
    history: readonly Message[],
    identity: Omit<RunIdentity, "agentName">,
    start: RunStart,
    restore?: RunRestore,
  ): RunStream<O> {
    const agentName = this.#options.agentName;
    const context = new RunContext(
      { ...identity, ...(agentName ? { agentName } : {}) },
      history,
      input.sink,
      restore,
    );
    const hooks = new RunHooks(
      this.#hooks,
      {
        runId: context.runId,
        ...(agentName ? { agentName } : {}),
        record: (kind: string, data: unknown) => void context.emit({ type: "fact", kind, data }),
      },
      (failure) => context.emit(hookFailedEvent(failure)),
    );
    const external = input.signal;
    const onExternalAbort = () => context.controller.abort(external?.reason);
    if (external?.aborted) onExternalAbort();
    else external?.addEventListener("abort", onExternalAbort, { once: true });
    const state: RunState = {
      context,
      hooks,
      ended: false,
      system: this.#output.system(this.#options.system),
      ...(this.#context.compaction ? { tracker: new ContextTracker(this.#context.estimate) } : {}),
    };
    const result = this.#drive(state, start).finally(() => {
      external?.removeEventListener("abort", onExternalAbort);
      context.queue.close();
    });
    return {
      runId: context.runId,
      result,
      abort: (reason?: unknown) => context.controller.abort(reason),
      [Symbol.asyncIterator]: () => context.queue[Symbol.asyncIterator](),
    };
  }

  async #drive(state: RunState, start: RunStart): Promise<RunResult<O>> {
    try {
      return await this.#loop(state, start);
    } catch (error) {
      // A bug or a broken contract below us: still end the run with a typed stop reason and an event.
      const failure = { code: "internal", message: errorMessage(error) };
      if (!state.ended) return this.#finish(state, "tool_error", failure);
      // It broke while finishing: end with what is known, still with exactly one terminal event.
      const { context } = state;
      const usage = context.usage();
      if (!state.terminated)
        context.emit({ type: "run_failed", stopReason: "tool_error", error: failure, usage });
      return {
        runId: context.runId,
        stopReason: "tool_error",
        finalText: lastAssistantText(context.transcript.messages),
        messages: [...context.transcript.messages],
        usage,
        error: failure,
      };
    }
  }

  async #loop(state: RunState, start: RunStart): Promise<RunResult<O>> {
    const { context, hooks } = state;
    const stop =
      start.kind === "prompt"
        ? await this.#begin(state, start.prompt)
        : await this.#resumeBegin(state, start);
    if (stop) return stop;
    const unreadable = await this.#readInstructions(state);
    if (unreadable) return unreadable;
    for (;;) {
      if (context.signal.aborted) return this.#finishAborted(state);
      if (context.modelRequests >= this.limits.maxModelRequests) {
        return this.#finishAtLimit(
          state,
          "max_model_requests",
          `the run reached its limit of ${this.limits.maxModelRequests} model requests`,
        );
      }
      const turn = await this.#modelTurn(state);
      if ("stop" in turn) return turn.stop;
      const resolution = this.#output.resolve(turn.message);
      // final_result calls are the harness's own: recorded and answered, never counted or hooked.
      for (const { call, result } of resolution.answered) {
        context.emit({ type: "tool_call_requested", toolCall: call, repairs: [] });
        context.emit({ type: "tool_call_completed", result, durationMs: 0 });
      }
      if (resolution.calls.length > 0) {
        const stopped = await this.#toolTurn(state, resolution.calls);
        if (stopped) return stopped;
      }
      if (resolution.output && resolution.calls.length === 0) {
        state.output = resolution.output;
        return this.#finish(state, "completed");
      }
      if (resolution.retry) {
        if (context.outputRetries >= this.limits.outputRetries) {
          return this.#finishAtLimit(
            state,
            "output_retries_exceeded",
            `the final answer was still invalid after ${this.limits.outputRetries} corrective turns: ${resolution.retry.problems.slice(0, 3).join("; ")}`,
          );
        }
        context.outputRetries++;
        context.emit({
          type: "output_retry",
          attempt: context.outputRetries,
          problems: resolution.retry.problems,
          ...(resolution.retry.message ? { message: resolution.retry.message } : {}),
        });
      }
      if (hooks.strictFailure) return this.#finishHookFailed(state, hooks.strictFailure);
    }
  }

  /** One model request: its events, accounting and the complete turn, or how the run ends there. */
  async #modelTurn(
    state: RunState,
  ): Promise<{ readonly message: AssistantMessage } | { readonly stop: RunResult<O> }> {
    const { context } = state;
    if ((await this.#compactIfNeeded(state)) === "aborted") return { stop: await this.#finishAborted(state) };
    this.#warnNearLimits(context);
    for (let attempt = 0; ; attempt++) {
      context.modelRequests++;
      const request = context.modelRequests;
      context.emit({
        type: "model_request",
        request,
        messageCount: context.transcript.messages.length,
        toolNames: this.#modelSchemas.map((schema) => schema.name),
      });
      const started = performance.now();
      const turn = await this.#callModel(context, state.system);
      if (turn.usage) context.addTokens(turn.usage);
      if (turn.error || !turn.message || !turn.stopReason) {
        if (context.signal.aborted || turn.error?.code === "aborted") {
          return { stop: await this.#finishAborted(state) };
        }
        const modelError = turn.error ?? {
          code: "bad_response",
          message: "the model's stream ended without a complete turn",
          retryable: false,
        };
        let message = modelError.message;
        // A context overflow gets one forced compaction and one retry; a second overflow ends the run.
        if (modelError.code === "context_overflow" && attempt === 0 && this.#context.compaction) {
          const forced = await this.#compact(state, "overflow");
          if (forced === "aborted") return { stop: await this.#finishAborted(state) };
          if (forced === "compacted") {
            if (context.modelRequests >= this.limits.maxModelRequests) {
              return {
                stop: await this.#finishAtLimit(
                  state,
                  "max_model_requests",
                  `the run reached its limit of ${this.limits.maxModelRequests} model requests before retrying after a context overflow`,
                ),
              };
            }
            continue;
          }
          message = `${message} (compaction could not make room: ${forced.failed})`;
        }
        const error = { code: modelError.code, message, modelError };
        return { stop: await this.#finish(state, "provider_error", error) };
      }
      const message = normalizeToolCalls(turn.message);
      context.emit({
        type: "model_response",
        request,
        message,
        usage: turn.usage ?? emptyUsage,
        stopReason: turn.stopReason,
        durationMs: performance.now() - started,
      });
      state.truncated = turn.stopReason === "max_tokens";
      state.tracker?.report(
        turn.usage?.inputTokens ?? 0,
        turn.usage?.outputTokens ?? 0,
        context.transcript.messages.length,
      );
      return { message };
    }
  }

  /** Workspace instructions, read once at run start into this run's system prompt. */
  async #readInstructions(state: RunState): Promise<RunResult<O> | undefined> {
    const settings = this.#context.instructions;
    if (!settings) return undefined;
    try {
      const files = await readWorkspaceInstructions(this.workspace, settings);
      state.system = this.#output.system(withInstructions(this.#options.system, files, this.workspace.root));
      return undefined;
    } catch (error) {
      return this.#finish(state, "tool_error", {
        code: "instructions_unreadable",
        message: `the workspace instructions could not be read: ${errorMessage(error)}`,
      });
    }
  }

  /** Compacts before a request when the transcript passes the threshold share of the context window. */
  async #compactIfNeeded(state: RunState): Promise<CompactionOutcome | undefined> {
    const settings = this.#context.compaction;
    const tracker = state.tracker;
    if (!settings || !tracker) return undefined;
    const tokens = this.#tokensInUse(state, tracker);
    if (tokens < settings.contextWindow * settings.threshold || !tracker.mayRetry(tokens)) return undefined;
    const outcome = await this.#compact(state, "threshold", tokens);
    // A summary that failed is not asked for again on every turn: only once the transcript grew a bit.
    if (typeof outcome === "object") tracker.failedAt(tokens, Math.ceil(settings.contextWindow * 0.05));
    return outcome;
  }

  #tokensInUse(state: RunState, tracker: ContextTracker): number {
    const fixed = estimateTextTokens(state.system ?? "") + this.#schemaTokens;
    return tracker.tokens(state.context.transcript.messages, fixed);
  }

  /**
   * Replaces the older part of the transcript with a summary the model writes. The recent turns (after an
   * overflow, half as many tokens of them) and any call still waiting for its result are kept; the
   * `compaction` event records it, so the transcript projection, stores, resume and forks all see it.
   */
  async #compact(
    state: RunState,
    reason: "threshold" | "overflow",
    tokensBefore?: number,
  ): Promise<CompactionOutcome> {
    const settings = this.#context.compaction;
    const tracker = state.tracker;
    if (!settings || !tracker) return { failed: "compaction is off" };
    const { context } = state;
    const messages = context.transcript.messages;
    const before = tokensBefore ?? this.#tokensInUse(state, tracker);
    const keep =
      reason === "overflow" ? Math.floor(settings.keepRecentTokens / 2) : settings.keepRecentTokens;
    const cut = findCutPoint(messages, keep, this.#context.estimate);
    if (cut === undefined || !worthCompacting(messages, cut)) {
      return { failed: "there is nothing before the most recent turn to summarize" };
    }
    const outcome = await summarize({
      model: settings.model ?? this.model,
      messages: messages.slice(0, cut),
      instructions: settings.instructions,
      // The summarizer gets a text rendering bounded to a share of the window, whatever the history holds.
      maxChars: Math.max(8_000, Math.floor(settings.contextWindow * 0.6 * 4)),
      maxOutputTokens: settings.maxSummaryTokens,
      signal: context.signal,
    });
    context.addTokens(outcome.usage);
    if (context.signal.aborted) return "aborted";
    if (!outcome.ok) return { failed: `the summary request failed: ${outcome.error.message}` };
    context.emit({
      type: "compaction",
      replacedCount: cut,
      summary: summaryMessage(outcome.summary),
      tokensBefore: before,
      reason,
      usage: outcome.usage,
    });
    tracker.reset();
    return "compacted";
  }

  /** run_start and user_prompt_submit, then run_started; returns a result when the run ends there. */
  async #begin(state: RunState, prompt: readonly Message[]): Promise<RunResult<O> | undefined> {
    const { context, hooks } = state;
    // Hooks run before run_started (the prompt they add to is part of it): their failures wait until after.
    const failures: HookFailure[] = [];
    // Facts recorded this early wait for run_started too: it is the stream's first event.
    const facts: { kind: string; data: unknown }[] = [];
    const early = new RunHooks(
      hooks.runner,
      { ...hooks.base, record: (kind: string, data: unknown) => void facts.push({ kind, data }) },
      (failure) => failures.push(failure),
    );
    let failed = await early.fire("run_start", {
      prompt,
      historyLength: context.historyLength,
      resumed: false,
    });
    const gate = new CancelSwitch();
    const added: string[] = [];
    if (!failed) {
      failed = await early.fire(
        "user_prompt_submit",
        { prompt, addContext: (text: string) => void added.push(text), cancel: gate.cancel },
        { stopped: () => gate.cancelled },
      );
    }
    const messages = added.length > 0 ? [...prompt, userText(added.join("\n\n"))] : prompt;
    context.emit({
      type: "run_started",
      provider: this.model.provider,
      model: this.model.model,
      messages,
      historyLength: context.historyLength,
    });
    for (const fact of facts) context.emit({ type: "fact", ...fact });
    for (const failure of failures) context.emit(hookFailedEvent(failure));
    if (failed) return this.#finishHookFailed(state, failed);
    if (gate.cancelled) {
      return this.#finish(state, "hook_cancelled", {
        code: "hook_cancelled",
        message: `a user_prompt_submit hook cancelled the run: ${gate.reason}`,
      });
    }
    return undefined;
  }

  /** Continues a paused batch with its decisions; the run then goes on as usual. */
  async #resumeBegin(
    state: RunState,
    start: Extract<RunStart, { kind: "approval" }>,
  ): Promise<RunResult<O> | undefined> {
    const { context, hooks } = state;
    context.emit({
      type: "run_started",
      provider: this.model.provider,
      model: this.model.model,
      messages: [],
      historyLength: context.historyLength,
      resumed: "approval",
    });
    const failed = await hooks.fire("run_start", {
      prompt: [],
      historyLength: context.historyLength,
      resumed: true,
    });
    if (failed) return this.#finishHookFailed(state, failed);
    // The batch was counted against max_tool_calls when it paused: it is not counted again.
    const outcome = await runBatch(this.#batchSetup(state), start.calls, start.decisions);
    return this.#afterBatch(state, outcome, start.calls);
  }

  /** Runs the ordinary calls of a turn; returns a result when the run ends there. */
  async #toolTurn(state: RunState, calls: readonly ToolCallPart[]): Promise<RunResult<O> | undefined> {
    const { context } = state;
    if (context.toolCalls + calls.length > this.limits.maxToolCalls) {
      this.#refuseBatch(context, calls);
      return this.#finishAtLimit(
        state,
        "max_tool_calls",
        `a batch of ${calls.length} calls would pass the limit of ${this.limits.maxToolCalls} tool calls`,
      );
    }
    context.toolCalls += calls.length;
    return this.#afterBatch(state, await runBatch(this.#batchSetup(state), calls), calls);
  }

  async #afterBatch(
    state: RunState,
    outcome: BatchOutcome,
    calls: readonly ToolCallPart[],
  ): Promise<RunResult<O> | undefined> {
    const { context, hooks } = state;
    if (outcome.paused) return this.#pause(state, calls, outcome.pending, outcome.decided);
    const { infrastructureError } = outcome;
    if (infrastructureError) {
      return this.#finish(state, infrastructureError.code === "store_write" ? "store_error" : "tool_error", {
        code: infrastructureError.code,
        message: infrastructureError.message,
      });
    }
    if (hooks.strictFailure) return this.#finishHookFailed(state, hooks.strictFailure);
    if (context.signal.aborted) return this.#finishAborted(state);
    const exhausted = this.#exhaustedRetryBudget(context);
    if (exhausted) {
      return this.#finishAtLimit(
        state,
        "tool_retries_exceeded",
        `tool "${exhausted}" failed more often than its retry budget allows`,
      );
    }
    return undefined;
  }

  #batchSetup(state: RunState) {
    const spill = this.#context.spill;
    return {
      context: state.context,
      hooks: state.hooks,
      tools: this.#tools,
      workspace: this.workspace,
      defaultTimeoutMs: this.limits.toolTimeoutMs,
      approver: this.#options.approver,
      truncated: state.truncated === true,
      ...(spill
        ? {
            finishResult: (result: ToolResultMessage) =>
              spillResult(result, state.context.runId, this.workspace, spill),
          }
        : {}),
    };
  }

  /** The key envelopes are sealed with: the configured one, else the user's, read once on first use. */
  #approvalSecret(): string {
    if (this.#options.approvalSecret !== undefined) return this.#options.approvalSecret;
    this.#userSecret ??= loadOrCreateApprovalSecret();
    return this.#userSecret;
  }

  async #pause(
    state: RunState,
    calls: readonly ToolCallPart[],
    pending: readonly PendingApproval[],
    decided: ReadonlyMap<string, { readonly approved: boolean; readonly reason?: string }>,
  ): Promise<RunResult<O>> {
    const { context } = state;
    let secret: string;
    try {
      secret = this.#approvalSecret();
    } catch (error) {
      // Nothing of the batch ran; without a seal there is no envelope to resume, so the run ends here.
      return this.#finish(state, "tool_error", {
        code: error instanceof BridleError ? error.code : "approval_secret_invalid",
        message: `the run paused for approval but cannot seal its resume envelope: ${errorMessage(error)}`,
      });
    }
    // Sealed after the terminal event, so the resumed stream's sequence starts right after it.
    const seal = (): Pick<RunResult<O>, "pendingApprovals" | "resumeEnvelope"> => ({
      pendingApprovals: pending,
      resumeEnvelope: sealEnvelope(
        {
          run: {
            runId: context.runId,
            ...context.identity,
            nextSeq: context.nextSeq,
            historyLength: context.historyLength,
          },
          origin: { provider: this.model.provider, model: this.model.model },
          messages: context.transcript.messages,
          batch: calls.map((call) => call.id),
          pending: pending.map((item) => item.toolCall.id),
          decided: Object.fromEntries(decided),
          usage: context.usage(),
          warnings: [...context.emittedWarnings],
          toolset: this.#toolset,
        },
        secret,
      ),
    });
    const ids = pending.map((item) => item.toolCall.id).join(", ");
    return this.#finish(
      state,
      "approval_required",
      {
        code: "approval_required",
        message: `the run paused: ${pending.length} call(s) await approval (${ids})`,
      },
      seal,
    );
  }

  async #callModel(context: RunContext, system: string | undefined): Promise<TurnOutcome> {
    let outcome: TurnOutcome = {};
    const options = this.#output.modelOptions(this.#options.modelOptions);
    try {
      const events: AsyncIterable<ModelEvent> = this.model.stream({
        ...(system === undefined ? {} : { system }),
        messages: context.transcript.messages,
        tools: this.#modelSchemas,
        ...(options ? { options } : {}),
        signal: context.signal,
      });
      for await (const event of events) {
        switch (event.type) {
          case "text_delta":
            context.emit({ type: "text_delta", delta: event.delta });
            break;
          case "reasoning_delta":
            context.emit({ type: "reasoning_delta", delta: event.delta });
            break;
          case "done":
            outcome = { message: event.message, usage: event.usage, stopReason: event.stopReason };
            break;
          case "error":
            outcome = { error: event.error, ...(event.usage ? { usage: event.usage } : {}) };
            break;
          default:
            break;
        }
      }
    } catch (error) {
      // Adapters must not throw; one that does is reported like any other provider failure.
      outcome = {
        error: {
          code: context.signal.aborted ? "aborted" : "unknown",
          message: `the model adapter threw: ${errorMessage(error)}`,
          retryable: false,
        },
      };
    }
    return outcome;
  }

  #warnNearLimits(context: RunContext): void {
    const checks = [
      { limit: "model_requests" as const, used: context.modelRequests, max: this.limits.maxModelRequests },
      { limit: "tool_calls" as const, used: context.toolCalls, max: this.limits.maxToolCalls },
    ];
    for (const { limit, used, max } of checks) {
      for (const at of crossedThresholds(used, max, this.limits.warnAt)) {
        const key = `${limit}:${at}`;
        if (context.emittedWarnings.has(key)) continue;
        context.emittedWarnings.add(key);
        const what = limit === "model_requests" ? "model requests" : "tool calls";
        const text = `[harness notice] This run has used ${used} of its ${max} ${what}; ${max - used} remain. Plan to finish within the budget.`;
        context.emit({ type: "limit_warning", limit, used, max, message: userText(text) });
      }
    }
  }

  #refuseBatch(context: RunContext, calls: readonly ToolCallPart[]): void {
    const text = failureText(
      "LimitExceeded",
      `not run: this batch of ${calls.length} calls would pass the run's limit of ${this.limits.maxToolCalls} tool calls (${context.toolCalls} used)`,
    );
    for (const call of calls) {
      context.emit({ type: "tool_call_requested", toolCall: call, repairs: [] });
      context.emit({
        type: "tool_call_completed",
        result: failureResult(call, "LimitExceeded", text),
        durationMs: 0,
      });
    }
  }

  #exhaustedRetryBudget(context: RunContext): string | undefined {
    for (const [name, count] of Object.entries(context.toolRetries)) {
      const budget = this.#tools.get(name)?.retryBudget ?? this.limits.toolRetryBudget;
      if (count > budget) return name;
    }
    return undefined;
  }

  #finishAborted(state: RunState): Promise<RunResult<O>> {
    return this.#finish(state, "aborted", { code: "aborted", message: "the run was aborted" });
  }

  #finishHookFailed(state: RunState, failure: HookFailure): Promise<RunResult<O>> {
    return this.#finish(state, "hook_failed", {
      code: "hook_failed",
      message: `a ${failure.hook} hook${failure.hookName ? ` (${failure.hookName})` : ""} threw: ${failure.message}`,
    });
  }

  async #finishAtLimit(state: RunState, limit: ReachedLimit, message: string): Promise<RunResult<O>> {
    // limit_reached observes; it cannot lift the limit. A strict failure here still ends at the limit.
    await state.hooks.fire("limit_reached", { limit, message, usage: state.context.usage() });
    return this.#finish(state, limit, { code: limit, message });
  }

  /**
   * Ends the run: run_end hooks, then exactly one terminal event. Guarded, so a failure while finishing
   * (caught by #drive) cannot end the run twice.
   */
  async #finish(
    state: RunState,
    stopReason: StopReason,
    error?: { code: string; message: string; modelError?: ModelError },
    paused?: () => Pick<RunResult<O>, "pendingApprovals" | "resumeEnvelope">,
  ): Promise<RunResult<O>> {
    const { context, hooks } = state;
    if (state.ended) throw new Error("the run already ended");
    state.ended = true;
    const pending = await context.recorded();
    if (pending !== undefined && stopReason !== "store_error") {
      stopReason = "store_error";
      error = { code: "store_write", message: `recording the run failed: ${errorMessage(pending)}` };
    }
    const finalText = lastAssistantText(context.transcript.messages);
    const endFailure = await hooks.fire("run_end", {
      stopReason,
      finalText,
      usage: context.usage(),
      ...(error && stopReason !== "completed" ? { error: { code: error.code, message: error.message } } : {}),
    });
    if (endFailure && stopReason === "completed") {
      stopReason = "hook_failed";
      error = { code: "hook_failed", message: `a run_end hook threw: ${endFailure.message}` };
    }
    const usage = context.usage();
    const output = stopReason === "completed" && this.#output.structured ? state.output : undefined;
    if (stopReason === "completed") {
      context.emit({
        type: "run_completed",
        stopReason,
        finalText,
        usage,
        ...(output ? { output: output.value } : {}),
      });
    } else {
      const failure = error ?? { code: stopReason, message: stopReason };
      context.emit({ type: "run_failed", stopReason, error: failure, usage });
    }
    state.terminated = true;
    await context.recorded();
    return {
      runId: context.runId,
      stopReason,
      finalText,
      messages: [...context.transcript.messages],
      usage,
      ...(error && stopReason !== "completed" ? { error } : {}),
      ...(output ? { output: output.value as O } : {}),
      ...(stopReason === "approval_required" && paused ? paused() : {}),
    };
  }
}

async function drain<O>(stream: RunStream<O>): Promise<RunResult<O>> {
  for await (const _ of stream) {
    // Draining the stream lets the run proceed; the result carries the outcome.
  }
  return stream.result;
}

function hookFailedEvent(failure: HookFailure) {
  return {
    type: "hook_failed" as const,
    hook: failure.hook,
    ...(failure.hookName ? { hookName: failure.hookName } : {}),
    message: failure.message,
  };
}

function promptMessages(prompt: RunInput["prompt"]): readonly Message[] {
  if (typeof prompt === "string") return [userText(prompt)];
  if (Array.isArray(prompt)) return prompt as readonly Message[];
  return [prompt as UserMessage];
}

function lastAssistantText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === "assistant") return textOf(message.content);
  }
  return "";
}

/** Give every tool call a unique, non-empty id, so each result can name its call. */
function normalizeToolCalls(message: AssistantMessage): AssistantMessage {
  const seen = new Set<string>();
  let changed = false;
  const content = message.content.map((part, index) => {
    if (part.type !== "tool_call") return part;
    let id = part.id;
    if (!id || seen.has(id)) {
      id = `call_${index}_${Math.random().toString(36).slice(2, 10)}`;
      changed = true;
    }
    seen.add(id);
    const name = part.name.trim();
    if (name !== part.name) changed = true;
    return id === part.id && name === part.name ? part : { ...part, id, name };
  });
  return changed ? { ...message, content } : message;
}
