import type { Approver } from "./approver.js";
import { BridleError, errorMessage } from "./errors.js";
import type { RunEvent, StopReason } from "./events.js";
import { failureText } from "./failure-text.js";
import { crossedThresholds, type HarnessLimits, type HarnessLimitsInput, limitsSchema } from "./limits.js";
import {
  type AssistantMessage,
  type Message,
  type ToolCallPart,
  textOf,
  toolCallsOf,
  type UserMessage,
  userText,
} from "./messages.js";
import type { Model, ModelError, ModelEvent, ModelOptions, ModelStopReason, ToolSchema } from "./model.js";
import { type ParsedArguments, parseToolArguments } from "./repair.js";
import { type EventSink, RunContext, type RunIdentity } from "./run-context.js";
import { toolSchemaOf } from "./schema.js";
import type { AnyTool } from "./tool.js";
import {
  type CallEnvironment,
  type CallOutcome,
  cancelledResult,
  executeCall,
  failureResult,
} from "./tool-call.js";
import type { RunUsage, Usage } from "./usage.js";
import { Workspace } from "./workspace.js";

export interface HarnessOptions {
  readonly model: Model;
  readonly tools?: readonly AnyTool[];
  readonly system?: string;
  /** The workspace tools act in: a Workspace, or a folder path. Defaults to the current directory. */
  readonly workspace?: Workspace | string;
  readonly limits?: HarnessLimitsInput;
  readonly approver?: Approver;
  readonly modelOptions?: ModelOptions;
  readonly agentName?: string;
}

export interface RunInput extends Omit<RunIdentity, "agentName"> {
  /** The new user turn: text, a user message, or several messages. */
  readonly prompt: string | UserMessage | readonly Message[];
  /** Earlier conversation this run continues (a resumed session's transcript). */
  readonly history?: readonly Message[];
  readonly signal?: AbortSignal;
  /** Records events as they happen; calls are recorded before they execute. */
  readonly sink?: EventSink;
}

export interface RunResult {
  readonly runId: string;
  readonly stopReason: StopReason;
  /** Text of the last assistant message. */
  readonly finalText: string;
  /** The whole transcript: history, then what this run added. */
  readonly messages: readonly Message[];
  readonly usage: RunUsage;
  readonly error?: { readonly code: string; readonly message: string; readonly modelError?: ModelError };
}

/** A running run: iterate it for events (once), or await `result`. Breaking out of the loop aborts the run. */
export interface RunStream extends AsyncIterable<RunEvent> {
  readonly runId: string;
  readonly result: Promise<RunResult>;
  abort(reason?: unknown): void;
}

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
export class Harness {
  readonly model: Model;
  readonly workspace: Workspace;
  readonly limits: HarnessLimits;
  readonly #options: HarnessOptions;
  readonly #tools = new Map<string, AnyTool>();
  readonly #schemas: readonly ToolSchema[];

  constructor(options: HarnessOptions) {
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
    for (const tool of options.tools ?? []) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(tool.name)) {
        throw new BridleError("invalid_config", `tool name "${tool.name}" must match ^[A-Za-z0-9_-]{1,64}$`);
      }
      if (this.#tools.has(tool.name))
        throw new BridleError("duplicate_tool", `two tools are named "${tool.name}"`);
      this.#tools.set(tool.name, tool);
    }
    this.#schemas = [...this.#tools.values()].map(toolSchemaOf);
  }

  get tools(): readonly AnyTool[] {
    return [...this.#tools.values()];
  }

  /** The tool schemas the model is shown. */
  get toolSchemas(): readonly ToolSchema[] {
    return this.#schemas;
  }

  /** Run to the end and return the result. Never throws for run failures: see `stopReason`. */
  async run(input: RunInput): Promise<RunResult> {
    const stream = this.stream(input);
    for await (const _ of stream) {
      // Draining the stream lets the run proceed; the result carries the outcome.
    }
    return stream.result;
  }

  /** Start a run now and stream its events. */
  stream(input: RunInput): RunStream {
    const context = new RunContext(
      { ...input, ...(this.#options.agentName ? { agentName: this.#options.agentName } : {}) },
      input.history ?? [],
      input.sink,
    );
    const external = input.signal;
    const onExternalAbort = () => context.controller.abort(external?.reason);
    if (external?.aborted) onExternalAbort();
    else external?.addEventListener("abort", onExternalAbort, { once: true });
    const result = this.#drive(context, promptMessages(input.prompt)).finally(() => {
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

  async #drive(context: RunContext, prompt: readonly Message[]): Promise<RunResult> {
    try {
      return await this.#loop(context, prompt);
    } catch (error) {
      // A bug or a broken contract below us: still end the run with a typed stop reason and an event.
      return this.#finish(context, "tool_error", { code: "internal", message: errorMessage(error) });
    }
  }

  async #loop(context: RunContext, prompt: readonly Message[]): Promise<RunResult> {
    context.emit({
      type: "run_started",
      provider: this.model.provider,
      model: this.model.model,
      messages: prompt,
      historyLength: context.historyLength,
    });
    for (;;) {
      if (context.signal.aborted) return this.#finishAborted(context);
      if (context.modelRequests >= this.limits.maxModelRequests) {
        return this.#finish(context, "max_model_requests", {
          code: "max_model_requests",
          message: `the run reached its limit of ${this.limits.maxModelRequests} model requests`,
        });
      }
      this.#warnNearLimits(context);
      context.modelRequests++;
      const request = context.modelRequests;
      context.emit({
        type: "model_request",
        request,
        messageCount: context.transcript.messages.length,
        toolNames: this.#schemas.map((schema) => schema.name),
      });
      const started = performance.now();
      const turn = await this.#callModel(context);
      if (turn.usage) context.addTokens(turn.usage);
      if (turn.error || !turn.message || !turn.stopReason) {
        if (context.signal.aborted || turn.error?.code === "aborted") return this.#finishAborted(context);
        const modelError = turn.error ?? {
          code: "bad_response",
          message: "the model's stream ended without a complete turn",
          retryable: false,
        };
        return this.#finish(context, "provider_error", {
          code: modelError.code,
          message: modelError.message,
          modelError,
        });
      }
      const message = normalizeToolCalls(turn.message);
      context.emit({
        type: "model_response",
        request,
        message,
        usage: turn.usage ?? {
          inputTokens: 0,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        },
        stopReason: turn.stopReason,
        durationMs: performance.now() - started,
      });
      const calls = toolCallsOf(message);
      if (calls.length === 0) return this.#finish(context, "completed");

      if (context.toolCalls + calls.length > this.limits.maxToolCalls) {
        this.#refuseBatch(context, calls);
        return this.#finish(context, "max_tool_calls", {
          code: "max_tool_calls",
          message: `a batch of ${calls.length} calls would pass the limit of ${this.limits.maxToolCalls} tool calls`,
        });
      }
      context.toolCalls += calls.length;
      const infrastructureError = await this.#runBatch(context, calls);
      if (infrastructureError) {
        return this.#finish(
          context,
          infrastructureError.code === "store_write" ? "store_error" : "tool_error",
          {
            code: infrastructureError.code,
            message: infrastructureError.message,
          },
        );
      }
      if (context.signal.aborted) return this.#finishAborted(context);
      const exhausted = this.#exhaustedRetryBudget(context);
      if (exhausted) {
        return this.#finish(context, "tool_retries_exceeded", {
          code: "tool_retries_exceeded",
          message: `tool "${exhausted}" failed more often than its retry budget allows`,
        });
      }
    }
  }

  async #callModel(context: RunContext): Promise<TurnOutcome> {
    let outcome: TurnOutcome = {};
    try {
      const events: AsyncIterable<ModelEvent> = this.model.stream({
        ...(this.#options.system === undefined ? {} : { system: this.#options.system }),
        messages: context.transcript.messages,
        tools: this.#schemas,
        ...(this.#options.modelOptions ? { options: this.#options.modelOptions } : {}),
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

  /** Runs one model-emitted batch; returns an infrastructure error if one ended it. */
  async #runBatch(context: RunContext, calls: readonly ToolCallPart[]): Promise<BridleError | undefined> {
    const names = [...this.#tools.keys()];
    const prepared = calls.map((call) => {
      const tool = this.#tools.get(call.name);
      const parsed: ParsedArguments | undefined = tool
        ? parseToolArguments(tool.inputSchema, call.arguments)
        : undefined;
      return { call, tool, parsed };
    });
    for (const { call, parsed } of prepared) {
      context.emit({
        type: "tool_call_requested",
        toolCall: call,
        repairs: parsed?.ok ? parsed.repairs : [],
      });
    }
    const recordError = await context.recorded();
    if (recordError !== undefined) {
      for (const { call } of prepared) {
        context.emit({ type: "tool_call_completed", result: cancelledResult(call), durationMs: 0 });
      }
      return new BridleError("store_write", `recording the run failed: ${errorMessage(recordError)}`);
    }
    const env: CallEnvironment = {
      runId: context.runId,
      workspace: this.workspace,
      signal: context.signal,
      approver: this.#options.approver,
      defaultTimeoutMs: this.limits.toolTimeoutMs,
      progress: (call, data) =>
        context.emit({ type: "tool_progress", toolCallId: call.id, toolName: call.name, data }),
      approvalRequested: (call) => context.emit({ type: "approval_requested", toolCall: call }),
      approvalResolved: (call, approved, reason) =>
        context.emit({
          type: "approval_resolved",
          toolCallId: call.id,
          decision: reason === undefined ? { approved } : { approved, reason },
        }),
    };
    let infrastructureError: BridleError | undefined;
    const runOne = async ({ call, tool, parsed }: (typeof prepared)[number]): Promise<void> => {
      const started = performance.now();
      const outcome: CallOutcome =
        infrastructureError || context.signal.aborted
          ? { result: cancelledResult(call) }
          : await executeCall(call, tool, parsed, env, names);
      infrastructureError ??= outcome.infrastructureError;
      const { result } = outcome;
      if (result.errorKind === "Cancelled") context.cancelledToolCalls++;
      if (result.errorKind === "InvalidInput" || result.errorKind === "UnknownTool") {
        context.toolRetries[call.name] = (context.toolRetries[call.name] ?? 0) + 1;
      }
      context.emit({ type: "tool_call_completed", result, durationMs: performance.now() - started });
    };
    const sequential = prepared.some(({ tool }) => tool?.sequential);
    if (sequential) {
      for (const item of prepared) await runOne(item);
    } else {
      await Promise.all(prepared.map(runOne));
    }
    return infrastructureError;
  }

  #exhaustedRetryBudget(context: RunContext): string | undefined {
    for (const [name, count] of Object.entries(context.toolRetries)) {
      const budget = this.#tools.get(name)?.retryBudget ?? this.limits.toolRetryBudget;
      if (count > budget) return name;
    }
    return undefined;
  }

  #finishAborted(context: RunContext): Promise<RunResult> {
    return this.#finish(context, "aborted", { code: "aborted", message: "the run was aborted" });
  }

  async #finish(
    context: RunContext,
    stopReason: StopReason,
    error?: { code: string; message: string; modelError?: ModelError },
  ): Promise<RunResult> {
    const pending = await context.recorded();
    if (pending !== undefined && stopReason !== "store_error") {
      stopReason = "store_error";
      error = { code: "store_write", message: `recording the run failed: ${errorMessage(pending)}` };
    }
    const usage = context.usage();
    const messages = context.transcript.messages;
    const finalText = lastAssistantText(messages);
    if (stopReason === "completed") {
      context.emit({ type: "run_completed", stopReason, finalText, usage });
    } else {
      const failure = error ?? { code: stopReason, message: stopReason };
      context.emit({ type: "run_failed", stopReason, error: failure, usage });
    }
    await context.recorded();
    return {
      runId: context.runId,
      stopReason,
      finalText,
      messages: [...messages],
      usage,
      ...(error && stopReason !== "completed" ? { error } : {}),
    };
  }
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
