import { randomUUID } from "node:crypto";
import { loadOrCreateApprovalSecret } from "./approval-secret.js";
import type { ApprovalDecisions } from "./approvals.js";
import type { Approver } from "./approver.js";
import { beforeManualCompaction, type CompactionVerdict } from "./compaction-hook.js";
import { type ContextOptions, contextSettings } from "./context.js";
import { DeferredTools } from "./deferred-tools.js";
import { BridleError, errorMessage } from "./errors.js";
import { closeDanglingCalls, continuedHistory } from "./history.js";
import { type AnyHook, type HookFailure, HookRunner, RunHooks } from "./hooks.js";
import { type HarnessLimits, type HarnessLimitsInput, limitsSchema } from "./limits.js";
import { type Message, type UserMessage, userText } from "./messages.js";
import type { Model, ModelOptions, ToolSchema } from "./model.js";
import { FINAL_RESULT_TOOL, OutputPlan, type OutputSpec } from "./output.js";
import { RequestSetupRecords } from "./request-setup.js";
import { openEnvelope, toolsetDigest } from "./resume-envelope.js";
import { RunContext, type RunIdentity, type RunRestore } from "./run-context.js";
import { hookFailedEvent, RunLoop, type RunSetup, type RunStart } from "./run-loop.js";
import type { ResumeOptions, RunInput, RunResult, RunStream } from "./run-types.js";
import { toolSchemaOf } from "./schema.js";
import { estimateTextTokens } from "./token-estimate.js";
import type { AnyTool } from "./tool.js";
import type { ToolSource } from "./tool-source.js";
import { Workspace } from "./workspace.js";

export interface HarnessOptions<O = unknown> {
  readonly model: Model;
  readonly tools?: readonly AnyTool[];
  /**
   * Tools that join after the harness is built (MCP servers still connecting): read before every model
   * request, so the model is offered what they have by then. They are not part of the digest an approval
   * envelope is bound to; a resumed call names its tool as the source offers it at resume.
   */
  readonly toolSources?: readonly ToolSource[];
  /**
   * Tools left out of the request until the model finds them with a search tool (named `toolSearchName`)
   * that the harness then offers: rarely needed tools cost no request bytes. A found tool is offered from
   * the next request on, appended after the others; a call to one not found yet is answered with how to
   * find it. Which were found is read from the transcript, so a resumed session offers them again.
   */
  readonly deferredTools?: readonly AnyTool[];
  /** The deferred tools' search tool: "tool_search" unless given ("ToolSearch" in Claude's vocabulary). */
  readonly toolSearchName?: string;
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
  readonly #toolset: string;
  readonly #hooks: HookRunner;
  readonly #resumedEnvelopes = new Set<string>();
  #userSecret: string | undefined;
  /** What every run gets: this configuration, resolved once. */
  readonly #setup: RunSetup;

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
    const context = contextSettings(options.context);
    const deferred =
      options.deferredTools && options.deferredTools.length > 0
        ? new DeferredTools(options.deferredTools, options.toolSearchName)
        : undefined;
    for (const tool of [...(options.tools ?? []), ...(deferred ? [deferred.search] : [])]) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(tool.name)) {
        throw new BridleError("invalid_config", `tool name "${tool.name}" must match ^[A-Za-z0-9_-]{1,64}$`);
      }
      if (this.#tools.has(tool.name))
        throw new BridleError("duplicate_tool", `two tools are named "${tool.name}"`);
      this.#tools.set(tool.name, tool);
    }
    for (const name of deferred?.names ?? []) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
        throw new BridleError("invalid_config", `tool name "${name}" must match ^[A-Za-z0-9_-]{1,64}$`);
      }
      if (this.#tools.has(name)) throw new BridleError("duplicate_tool", `two tools are named "${name}"`);
    }
    this.#schemas = [...this.#tools.values()].map(toolSchemaOf);
    // An envelope is bound to every tool a resumed call may name, the deferred ones too.
    this.#toolset = toolsetDigest(
      deferred ? [...this.#schemas, ...(options.deferredTools ?? []).map(toolSchemaOf)] : this.#schemas,
    );
    const output = new OutputPlan(options.output);
    const finalResult = output.toolSchema();
    if (finalResult && this.#tools.has(FINAL_RESULT_TOOL)) {
      throw new BridleError(
        "invalid_config",
        `a tool is named "${FINAL_RESULT_TOOL}", which tool output mode reserves for the final answer`,
      );
    }
    const modelSchemas = finalResult ? [...this.#schemas, finalResult] : this.#schemas;
    try {
      this.#hooks = new HookRunner(options.hooks ?? [], options.strictHooks ?? false);
    } catch (error) {
      throw new BridleError("invalid_config", errorMessage(error));
    }
    this.#setup = {
      model: this.model,
      workspace: this.workspace,
      limits: this.limits,
      tools: this.#tools,
      modelSchemas,
      toolSources: options.toolSources ?? [],
      ...(deferred ? { deferred } : {}),
      toolset: this.#toolset,
      output,
      contextSettings: context,
      // Estimated tokens of what every request carries besides the messages: the tool schemas.
      schemaTokens: context.compaction ? estimateTextTokens(JSON.stringify(modelSchemas)) : 0,
      system: options.system,
      modelOptions: options.modelOptions,
      approver: options.approver,
      setupRecords: new RequestSetupRecords(),
      approvalSecret: () => this.#approvalSecret(),
    };
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
   * Start a run now and stream its events. Throws a BridleError ("invalid_continue") before starting when
   * `continueFrom` is not a completed run or comes with `history`.
   */
  stream(input: RunInput): RunStream<O> {
    if (input.continueFrom && input.history) {
      throw new BridleError("invalid_continue", "give either history or continueFrom, not both");
    }
    const history = closeDanglingCalls(
      input.continueFrom ? continuedHistory(input.continueFrom) : (input.history ?? []),
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

  /**
   * Runs the before_compaction hooks (trigger "manual") for a compaction a front door makes itself,
   * outside a run (a person's `/compact`): call it first, and do not compact when it answers blocked.
   * `instructions` is what the person asked the summary to keep.
   */
  beforeCompaction(
    input: {
      readonly sessionId?: string;
      readonly instructions?: string;
      readonly onHookFailed?: (failure: HookFailure) => void;
    } = {},
  ): Promise<CompactionVerdict> {
    const agentName = this.#options.agentName;
    return beforeManualCompaction(this.#hooks, {
      ...input,
      runId: `compact-${randomUUID()}`,
      ...(agentName ? { agentName } : {}),
    });
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
    input: ResumeOptions,
    history: readonly Message[],
    identity: Omit<RunIdentity, "agentName">,
    start: RunStart,
    restore?: RunRestore,
  ): RunStream<O> {
    const agentName = this.#options.agentName;
    const context = new RunContext(
      { ...identity, ...(agentName ? { agentName } : {}) },
      history,
      { sink: input.sink, observers: input.observers },
      restore,
    );
    const hooks = new RunHooks(
      this.#hooks,
      {
        runId: context.runId,
        ...(identity.sessionId ? { sessionId: identity.sessionId } : {}),
        ...(agentName ? { agentName } : {}),
        record: (kind: string, data: unknown) => void context.emit({ type: "fact", kind, data }),
      },
      (failure) => context.emit(hookFailedEvent(failure)),
    );
    const external = input.signal;
    const onExternalAbort = () => context.controller.abort(external?.reason);
    if (external?.aborted) onExternalAbort();
    else external?.addEventListener("abort", onExternalAbort, { once: true });
    const loop = new RunLoop<O>(this.#setup, context, hooks);
    for (const queued of input.queued ?? []) loop.enqueue(queued.delivery, queued.message, queued.queueId);
    const result = loop.drive(start).finally(() => {
      external?.removeEventListener("abort", onExternalAbort);
      context.queue.close();
    });
    return {
      runId: context.runId,
      result,
      abort: (reason?: unknown) => context.controller.abort(reason),
      steer: (message) => loop.enqueue("steer", message),
      followUp: (message) => loop.enqueue("follow_up", message),
      [Symbol.asyncIterator]: () => context.queue[Symbol.asyncIterator](),
    };
  }

  /** The key envelopes are sealed with: the configured one, else the user's, read once on first use. */
  #approvalSecret(): string {
    if (this.#options.approvalSecret !== undefined) return this.#options.approvalSecret;
    this.#userSecret ??= loadOrCreateApprovalSecret();
    return this.#userSecret;
  }
}

async function drain<O>(stream: RunStream<O>): Promise<RunResult<O>> {
  for await (const _ of stream) {
    // Draining the stream lets the run proceed; the result carries the outcome.
  }
  return stream.result;
}

function promptMessages(prompt: RunInput["prompt"]): readonly Message[] {
  if (typeof prompt === "string") return [userText(prompt)];
  if (Array.isArray(prompt)) return prompt as readonly Message[];
  return [prompt as UserMessage];
}
