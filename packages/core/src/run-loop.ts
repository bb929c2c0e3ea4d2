import { type ApprovalPause, pauseMessage, sealPause } from "./approval-pause.js";
import type { PendingApproval } from "./approvals.js";
import type { ApprovalDecision, Approver } from "./approver.js";
import { type BatchOutcome, type BatchSetup, runBatch } from "./batch.js";
import { type ContextSettings, ContextTracker } from "./context.js";
import type { DeferredTools } from "./deferred-tools.js";
import { BridleError, errorMessage } from "./errors.js";
import type { StopReason, UserMessageDelivery } from "./events.js";
import { CancelSwitch, type HookFailure, type ReachedLimit, RunHooks } from "./hooks.js";
import { readWorkspaceInstructions, withInstructions } from "./instructions.js";
import { exhaustedRetryBudget, type HarnessLimits, refuseBatch, warnNearLimits } from "./limits.js";
import {
  type AssistantMessage,
  type Message,
  type ToolCallPart,
  type ToolResultMessage,
  textOf,
  type UserMessage,
  userText,
} from "./messages.js";
import type { Model, ModelError, ModelOptions, ToolSchema } from "./model.js";
import { callModel, normalizeToolCalls } from "./model-call.js";
import { FINAL_RESULT_TOOL, type OutputPlan, type TurnResolution } from "./output.js";
import type { SettledApproval } from "./refused-call.js";
import type { RequestSetupRecords } from "./request-setup.js";
import { RunCompaction } from "./run-compaction.js";
import type { RunContext } from "./run-context.js";
import type { RunResult } from "./run-types.js";
import { spillResult } from "./spill.js";
import type { AnyTool } from "./tool.js";
import { RunTools, type ToolSource } from "./tool-source.js";
import { truncatedCallResult } from "./truncated-call.js";
import { emptyUsage } from "./usage.js";
import { UserQueue } from "./user-queue.js";
import type { Workspace } from "./workspace.js";

/**
 * A turn cut off at max_tokens gives no answer: a final_result call in it may parse and validate and
 * still be cut short, so, like every other call of that turn, it is answered as truncated and the
 * model gets a corrective turn (counted against the output retries, which bound a model that keeps
 * running out of output tokens).
 */
function withoutTruncatedAnswer(resolution: TurnResolution): TurnResolution {
  if (resolution.answered.length === 0) return resolution;
  return {
    calls: resolution.calls,
    answered: resolution.answered.map(({ call }) => ({ call, result: truncatedCallResult(call) })),
    retry: { problems: [`${FINAL_RESULT_TOOL} was truncated: the response reached max_tokens`] },
  };
}

const TRUNCATED_ANSWER =
  "the model's answer was cut off at its output token limit (max_tokens), so finalText is incomplete: raise modelOptions.maxOutputTokens or ask for a shorter answer";

/** What a harness hands each run: its configuration, resolved once. */
export interface RunSetup {
  readonly model: Model;
  readonly workspace: Workspace;
  readonly limits: HarnessLimits;
  readonly tools: ReadonlyMap<string, AnyTool>;
  /** What the model is offered: the tools, plus final_result in tool output mode. */
  readonly modelSchemas: readonly ToolSchema[];
  /** Tools that join after the harness was built, read before each model request. */
  readonly toolSources: readonly ToolSource[];
  /** Tools offered only once the model finds them with the search tool (which is among `tools`). */
  readonly deferred?: DeferredTools;
  /** The digest of the tool schemas an approval envelope is bound to. */
  readonly toolset: string;
  readonly output: OutputPlan;
  readonly contextSettings: ContextSettings;
  readonly schemaTokens: number;
  readonly system: string | undefined;
  readonly modelOptions: ModelOptions | undefined;
  readonly approver: Approver | undefined;
  /** Records the system prompt and tool list in the session when they change. */
  readonly setupRecords: RequestSetupRecords;
  /** The key approval envelopes are sealed with; throws when it is unusable. */
  approvalSecret(): string;
}

/** Where a run starts: a new prompt, or a batch that paused for approval. */
export type RunStart =
  | { readonly kind: "prompt"; readonly prompt: readonly Message[] }
  | {
      readonly kind: "approval";
      readonly calls: readonly ToolCallPart[];
      readonly decisions: ReadonlyMap<string, SettledApproval>;
    };

type RunEnd = { readonly code: string; readonly message: string; readonly modelError?: ModelError };

/**
 * One run of the loop: begin (hooks, run_started), then model turn, tool batch, repeat, until the model
 * answers with nothing left to do, a limit or a failure ends it, or a batch pauses for approval. Owns
 * the run's mutable state besides the counters in its RunContext, and ends it exactly once.
 */
export class RunLoop<O> {
  readonly #setup: RunSetup;
  readonly #context: RunContext;
  readonly #hooks: RunHooks;
  readonly #queue = new UserQueue();
  readonly #compaction: RunCompaction | undefined;
  /** The harness's tools and what its sources offer, as of the last model request. */
  readonly #tools: RunTools;
  #output: { readonly value: unknown } | undefined;
  /** The system prompt this run sends (workspace instructions and output instructions included). */
  #system: string | undefined;
  /** run_started is out: queued messages are announced as they come (before, they wait for it). */
  #started = false;
  /** #finish has started: nothing may end the run a second time, nothing more may be queued. */
  #ended = false;
  /** The terminal event is out. */
  #terminated = false;
  /** A before_stop handler has kept this run going once already. */
  #stopContinued = false;
  /** The last model turn stopped at max_tokens: its tool calls are answered as truncated, never run. */
  #truncated = false;

  constructor(setup: RunSetup, context: RunContext, hooks: RunHooks) {
    this.#setup = setup;
    this.#context = context;
    this.#hooks = hooks;
    this.#system = setup.output.system(setup.system);
    this.#tools = new RunTools(setup.tools, setup.modelSchemas, setup.toolSources, setup.deferred);
    const compaction = setup.contextSettings.compaction;
    this.#compaction = compaction
      ? new RunCompaction(
          setup.contextSettings,
          setup.model,
          context,
          new ContextTracker(setup.contextSettings.estimate),
          setup.schemaTokens,
          hooks,
        )
      : undefined;
  }

  /**
   * Queues a user message on the run (see `RunStream.steer`). Before run_started it waits to be
   * announced right after it.
   */
  enqueue(delivery: UserMessageDelivery, message: string | UserMessage, queueId?: string): string {
    if (this.#ended) {
      throw new BridleError("run_ended", `run ${this.#context.runId} is ending: the message was not queued`);
    }
    const queued = this.#queue.add(delivery, message, queueId);
    if (this.#started) this.#context.emit({ type: "user_message_queued", ...queued });
    return queued.queueId;
  }

  async drive(start: RunStart): Promise<RunResult<O>> {
    try {
      return await this.#loop(start);
    } catch (error) {
      // A bug or a broken contract below us: still end the run with a typed stop reason and an event.
      const failure = { code: "internal", message: errorMessage(error) };
      if (!this.#ended) return this.#finish("internal_error", failure);
      // It broke while finishing: end with what is known, still with exactly one terminal event.
      const context = this.#context;
      const usage = context.usage();
      if (!this.#terminated)
        context.emit({ type: "run_failed", stopReason: "internal_error", error: failure, usage });
      return {
        runId: context.runId,
        stopReason: "internal_error",
        finalText: lastAssistantText(context.transcript.messages),
        messages: [...context.transcript.messages],
        usage,
        error: failure,
      };
    }
  }

  async #loop(start: RunStart): Promise<RunResult<O>> {
    const context = this.#context;
    const limits = this.#setup.limits;
    const stop = start.kind === "prompt" ? await this.#begin(start.prompt) : await this.#resumeBatch(start);
    if (stop) return stop;
    const unreadable = await this.#readInstructions();
    if (unreadable) return unreadable;
    for (;;) {
      if (context.signal.aborted) return this.#finishAborted();
      if (context.modelRequests >= limits.maxModelRequests) {
        return this.#finishAtLimit(
          "max_model_requests",
          `the run reached its limit of ${limits.maxModelRequests} model requests`,
        );
      }
      const turn = await this.#modelTurn();
      if ("stop" in turn) return turn.stop;
      const resolved = this.#setup.output.resolve(turn.message);
      const resolution = this.#truncated ? withoutTruncatedAnswer(resolved) : resolved;
      // final_result calls are the harness's own: recorded and answered, never counted or hooked.
      for (const { call, result } of resolution.answered) {
        context.emit({ type: "tool_call_requested", toolCall: call, repairs: [] });
        context.emit({ type: "tool_call_completed", result, durationMs: 0 });
      }
      // An answer cut off at max_tokens is not the answer: the run ends saying so, never "completed",
      // whatever the output mode (a cut-off "1234" can still validate as "12"). finalText keeps the part.
      if (this.#truncated && resolution.calls.length === 0 && resolution.answered.length === 0) {
        return this.#finish("max_tokens", { code: "max_tokens", message: TRUNCATED_ANSWER });
      }
      if (resolution.calls.length > 0) {
        const stopped = await this.#toolTurn(resolution.calls);
        if (stopped) return stopped;
      }
      if (resolution.output && resolution.calls.length === 0) {
        // The run would end here: messages queued meanwhile continue it instead.
        if (this.#queue.hasSteering) continue;
        if (this.#queue.hasFollowUps) {
          this.#deliver("follow_up");
          continue;
        }
        if (await this.#keptGoing()) continue;
        this.#output = resolution.output;
        return this.#finish("completed");
      }
      if (resolution.retry) {
        if (context.outputRetries >= limits.outputRetries) {
          return this.#finishAtLimit(
            "output_retries_exceeded",
            `the final answer was still invalid after ${limits.outputRetries} corrective turns: ${resolution.retry.problems.slice(0, 3).join("; ")}`,
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
      if (this.#hooks.strictFailure) return this.#finishHookFailed(this.#hooks.strictFailure);
    }
  }

  /**
   * before_stop: a handler may keep the run going with a message, which joins as a follow-up so the
   * record shows it like any other queued message.
   */
  async #keptGoing(): Promise<boolean> {
    let message: string | undefined;
    await this.#hooks.fire(
      "before_stop",
      {
        finalText: lastAssistantText(this.#context.transcript.messages),
        continued: this.#stopContinued,
        continueWith: (text: string) => {
          message ??= text.trim() === "" ? "Continue." : text;
        },
      },
      { stopped: () => message !== undefined },
    );
    if (message === undefined || this.#hooks.strictFailure) return false;
    this.#stopContinued = true;
    this.enqueue("follow_up", message);
    this.#deliver("follow_up");
    return true;
  }

  /** Queued messages of one delivery join the transcript, oldest first. */
  #deliver(delivery: UserMessageDelivery): void {
    for (const queued of this.#queue.take(delivery)) {
      this.#context.emit({ type: "user_message_delivered", ...queued });
    }
  }

  /** Messages queued before run_started are announced right after it. */
  #announceQueued(): void {
    this.#started = true;
    for (const queued of this.#queue.waiting()) {
      this.#context.emit({ type: "user_message_queued", ...queued });
    }
  }

  /** One model request: its events, accounting and the complete turn, or how the run ends there. */
  async #modelTurn(): Promise<{ readonly message: AssistantMessage } | { readonly stop: RunResult<O> }> {
    const context = this.#context;
    const setup = this.#setup;
    const compaction = this.#compaction;
    if ((await compaction?.ifNeeded(this.#system)) === "aborted")
      return { stop: await this.#finishAborted() };
    if (this.#hooks.strictFailure) return { stop: await this.#finishHookFailed(this.#hooks.strictFailure) };
    warnNearLimits(setup.limits, context);
    for (let attempt = 0; ; attempt++) {
      // The safe point: the last batch has settled (compaction too), the request is not made yet.
      this.#deliver("steer");
      // Tools that joined since the last request (a server that finished connecting, a deferred tool the
      // model found) are offered now.
      this.#refreshTools();
      const schemas = this.#tools.schemas;
      const told = setup.setupRecords.changed(context, this.#system, schemas);
      context.modelRequests++;
      const request = context.modelRequests;
      context.emit({
        type: "model_request",
        request,
        messageCount: context.transcript.messages.length,
        toolNames: schemas.map((schema) => schema.name),
        ...(told ? { setup: told } : {}),
      });
      const started = performance.now();
      const turn = await callModel(context, {
        model: setup.model,
        system: this.#system,
        tools: schemas,
        options: setup.output.modelOptions(setup.modelOptions),
      });
      if (turn.usage) context.addTokens(turn.usage);
      if (turn.error || !turn.message || !turn.stopReason) {
        if (context.signal.aborted || turn.error?.code === "aborted") {
          return { stop: await this.#finishAborted() };
        }
        const modelError = turn.error ?? {
          code: "bad_response",
          message: "the model's stream ended without a complete turn",
          retryable: false,
        };
        let message = modelError.message;
        // A context overflow gets one forced compaction and one retry; a second overflow ends the run.
        if (modelError.code === "context_overflow" && attempt === 0 && compaction) {
          const forced = await compaction.compact("overflow", this.#system, undefined, modelError);
          if (forced === "aborted") return { stop: await this.#finishAborted() };
          if (this.#hooks.strictFailure)
            return { stop: await this.#finishHookFailed(this.#hooks.strictFailure) };
          if (forced === "compacted") {
            if (context.modelRequests >= setup.limits.maxModelRequests) {
              return {
                stop: await this.#finishAtLimit(
                  "max_model_requests",
                  `the run reached its limit of ${setup.limits.maxModelRequests} model requests before retrying after a context overflow`,
                ),
              };
            }
            continue;
          }
          message = `${message} (compaction could not make room: ${forced.failed})`;
        }
        return { stop: await this.#finish("provider_error", { code: modelError.code, message, modelError }) };
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
      this.#truncated = turn.stopReason === "max_tokens";
      compaction?.report(turn.usage?.inputTokens ?? 0, turn.usage?.outputTokens ?? 0);
      return { message };
    }
  }

  /** Workspace instructions, read once at run start into this run's system prompt. */
  async #readInstructions(): Promise<RunResult<O> | undefined> {
    const setup = this.#setup;
    const settings = setup.contextSettings.instructions;
    if (!settings) return undefined;
    try {
      const files = await readWorkspaceInstructions(setup.workspace, settings);
      this.#system = setup.output.system(withInstructions(setup.system, files, setup.workspace.root));
      return undefined;
    } catch (error) {
      return this.#finish("instructions_error", {
        code: "instructions_unreadable",
        message: `the workspace instructions could not be read: ${errorMessage(error)}`,
      });
    }
  }

  /** run_start and user_prompt_submit, then run_started; returns a result when the run ends there. */
  async #begin(prompt: readonly Message[]): Promise<RunResult<O> | undefined> {
    const context = this.#context;
    const hooks = this.#hooks;
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
      provider: this.#setup.model.provider,
      model: this.#setup.model.model,
      messages,
      historyLength: context.historyLength,
    });
    for (const fact of facts) context.emit({ type: "fact", ...fact });
    for (const failure of failures) context.emit(hookFailedEvent(failure));
    this.#announceQueued();
    if (failed) return this.#finishHookFailed(failed);
    if (gate.cancelled) {
      return this.#finish("hook_cancelled", {
        code: "hook_cancelled",
        message: `a user_prompt_submit hook cancelled the run: ${gate.reason}`,
      });
    }
    return undefined;
  }

  /** Continues a batch that paused for approval with its decisions; the run then goes on as usual. */
  async #resumeBatch(start: Extract<RunStart, { kind: "approval" }>): Promise<RunResult<O> | undefined> {
    const context = this.#context;
    context.emit({
      type: "run_started",
      provider: this.#setup.model.provider,
      model: this.#setup.model.model,
      messages: [],
      historyLength: context.historyLength,
      resumed: "approval",
    });
    this.#announceQueued();
    const failed = await this.#hooks.fire("run_start", {
      prompt: [],
      historyLength: context.historyLength,
      resumed: true,
    });
    if (failed) return this.#finishHookFailed(failed);
    // The batch was counted against max_tool_calls when it paused: it is not counted again. Its calls may
    // name tools of a source, looked up as the source offers them now.
    this.#refreshTools();
    const outcome = await runBatch(this.#batchSetup(), start.calls, start.decisions);
    return this.#afterBatch(outcome, start.calls);
  }

  /** Runs the ordinary calls of a turn; returns a result when the run ends there. */
  async #toolTurn(calls: readonly ToolCallPart[]): Promise<RunResult<O> | undefined> {
    const context = this.#context;
    const limits = this.#setup.limits;
    if (context.toolCalls + calls.length > limits.maxToolCalls) {
      refuseBatch(limits, context, calls);
      return this.#finishAtLimit(
        "max_tool_calls",
        `a batch of ${calls.length} calls would pass the limit of ${limits.maxToolCalls} tool calls`,
      );
    }
    context.toolCalls += calls.length;
    return this.#afterBatch(await runBatch(this.#batchSetup(), calls), calls);
  }

  async #afterBatch(
    outcome: BatchOutcome,
    calls: readonly ToolCallPart[],
  ): Promise<RunResult<O> | undefined> {
    const context = this.#context;
    if (outcome.paused) return this.#pause(calls, outcome.pending, outcome.decided);
    const { infrastructureError } = outcome;
    if (infrastructureError) {
      return this.#finish(infrastructureError.code === "store_write" ? "store_error" : "tool_error", {
        code: infrastructureError.code,
        message: infrastructureError.message,
      });
    }
    if (this.#hooks.strictFailure) return this.#finishHookFailed(this.#hooks.strictFailure);
    if (context.signal.aborted) return this.#finishAborted();
    const exhausted = exhaustedRetryBudget(this.#setup.limits, this.#tools.map, context);
    if (exhausted) {
      return this.#finishAtLimit(
        "tool_retries_exceeded",
        `tool "${exhausted}" failed more often than its retry budget allows`,
      );
    }
    return undefined;
  }

  #batchSetup(): BatchSetup {
    const setup = this.#setup;
    const spill = setup.contextSettings.spill;
    const context = this.#context;
    return {
      context,
      hooks: this.#hooks,
      tools: this.#tools.map,
      workspace: setup.workspace,
      defaultTimeoutMs: setup.limits.toolTimeoutMs,
      approver: setup.approver,
      truncated: this.#truncated,
      ...(spill
        ? {
            finishResult: (result: ToolResultMessage) =>
              spillResult(result, context.runId, setup.workspace, spill),
          }
        : {}),
    };
  }

  /** Reads the tool sources again; what they had to say goes on the run's stream as facts. */
  #refreshTools(): void {
    const messages = this.#context.transcript.messages;
    for (const fact of this.#tools.refresh(messages)) this.#context.emit({ type: "fact", ...fact });
  }

  async #pause(
    calls: readonly ToolCallPart[],
    pending: readonly PendingApproval[],
    decided: ReadonlyMap<string, ApprovalDecision>,
  ): Promise<RunResult<O>> {
    let secret: string;
    try {
      secret = this.#setup.approvalSecret();
    } catch (error) {
      // Nothing of the batch ran; without a seal there is no envelope to resume, so the run ends here.
      return this.#finish("approval_secret_error", {
        code: error instanceof BridleError ? error.code : "approval_secret_invalid",
        message: `the run paused for approval but cannot seal its resume envelope: ${errorMessage(error)}`,
      });
    }
    const toolset = this.#setup.toolset;
    return this.#finish(
      "approval_required",
      { code: "approval_required", message: pauseMessage(pending) },
      () => sealPause(this.#context, this.#setup.model, { calls, pending, decided, toolset, secret }),
    );
  }

  #finishAborted(): Promise<RunResult<O>> {
    return this.#finish("aborted", { code: "aborted", message: "the run was aborted" });
  }

  #finishHookFailed(failure: HookFailure): Promise<RunResult<O>> {
    return this.#finish("hook_failed", {
      code: "hook_failed",
      message: `a ${failure.hook} hook${failure.hookName ? ` (${failure.hookName})` : ""} threw: ${failure.message}`,
    });
  }

  async #finishAtLimit(limit: ReachedLimit, message: string): Promise<RunResult<O>> {
    // limit_reached observes; it cannot lift the limit. A strict failure here still ends at the limit.
    await this.#hooks.fire("limit_reached", { limit, message, usage: this.#context.usage() });
    return this.#finish(limit, { code: limit, message });
  }

  /**
   * Ends the run: run_end hooks, then exactly one terminal event. Guarded, so a failure while finishing
   * (caught by `drive`) cannot end the run twice.
   */
  async #finish(stopReason: StopReason, error?: RunEnd, paused?: () => ApprovalPause): Promise<RunResult<O>> {
    const context = this.#context;
    if (this.#ended) throw new Error("the run already ended");
    this.#ended = true;
    const pending = await context.recorded();
    if (pending !== undefined && stopReason !== "store_error") {
      stopReason = "store_error";
      error = { code: "store_write", message: `recording the run failed: ${errorMessage(pending)}` };
    }
    const finalText = lastAssistantText(context.transcript.messages);
    const endFailure = await this.#hooks.fire("run_end", {
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
    const output = stopReason === "completed" && this.#setup.output.structured ? this.#output : undefined;
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
    this.#terminated = true;
    await context.recorded();
    const undelivered = this.#queue.waiting();
    return {
      runId: context.runId,
      stopReason,
      finalText,
      messages: [...context.transcript.messages],
      usage,
      ...(error && stopReason !== "completed" ? { error } : {}),
      ...(output ? { output: output.value as O } : {}),
      ...(stopReason === "approval_required" && paused ? paused() : {}),
      ...(undelivered.length > 0 ? { undelivered } : {}),
    };
  }
}

export function hookFailedEvent(failure: HookFailure) {
  return {
    type: "hook_failed" as const,
    hook: failure.hook,
    ...(failure.hookName ? { hookName: failure.hookName } : {}),
    message: failure.message,
  };
}

function lastAssistantText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === "assistant") return textOf(message.content);
  }
  return "";
}
