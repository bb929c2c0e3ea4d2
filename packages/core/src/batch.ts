import { type PendingApproval, settleApprovals } from "./approvals.js";
import type { ApprovalDecision, Approver } from "./approver.js";
import { BridleError, errorMessage } from "./errors.js";
import { failureText } from "./failure-text.js";
import { HookApprovals } from "./hook-approval.js";
import { CancelSwitch, type RunHooks } from "./hooks.js";
import type { ToolCallPart, ToolFailureKind, ToolResultContent, ToolResultMessage } from "./messages.js";
import { refusedCallResult, type SettledApproval } from "./refused-call.js";
import { type ParsedArguments, parseToolArguments } from "./repair.js";
import type { RunContext } from "./run-context.js";
import type { AnyTool } from "./tool.js";
import { type CallEnvironment, cancelledResult, executeCall, failureResult } from "./tool-call.js";
import { truncatedCallResult } from "./truncated-call.js";
import type { Workspace } from "./workspace.js";

/**
 * Failures that count against a tool's retry budget: the model can fix them by calling again (malformed
 * JSON and schema failures are InvalidInput; a handler's ModelRetry is RetryRequested). A tool that ran
 * and failed for other reasons (NotFound, ToolError...) does not spend the budget.
 */
export const RETRYABLE_KINDS: ReadonlySet<ToolFailureKind> = new Set<ToolFailureKind>([
  "InvalidInput",
  "UnknownTool",
  "RetryRequested",
]);

export interface BatchSetup {
  readonly context: RunContext;
  readonly tools: ReadonlyMap<string, AnyTool>;
  readonly workspace: Workspace;
  readonly defaultTimeoutMs: number;
  readonly approver: Approver | undefined;
  readonly hooks: RunHooks;
  /** Last step before a result is recorded (spilling a large one to a file). */
  readonly finishResult?: (result: ToolResultMessage) => Promise<ToolResultMessage>;
  /** The turn stopped at max_tokens: every call is recorded and answered as truncated, none runs. */
  readonly truncated?: boolean;
}

export type BatchOutcome =
  | { readonly paused: false; readonly infrastructureError?: BridleError }
  | {
      readonly paused: true;
      readonly pending: readonly PendingApproval[];
      readonly decided: ReadonlyMap<string, ApprovalDecision>;
    };

interface PreparedCall {
  readonly call: ToolCallPart;
  readonly tool: AnyTool | undefined;
  readonly parsed: ParsedArguments | undefined;
}

/**
 * Runs one model-emitted batch. Approvals are settled first: if any call waits for a person, the batch
 * pauses before any call runs (nothing is recorded as requested). Otherwise every call is recorded, then
 * run (concurrently, or in order when one tool is sequential), each answered exactly once.
 * `resumed` carries the decisions of a batch that paused earlier.
 */
export async function runBatch(
  setup: BatchSetup,
  calls: readonly ToolCallPart[],
  resumed?: ReadonlyMap<string, SettledApproval>,
): Promise<BatchOutcome> {
  const { context, hooks } = setup;
  if (setup.truncated) return answerTruncated(context, calls);
  const prepared: PreparedCall[] = calls.map((call) => {
    const tool = setup.tools.get(call.name);
    return {
      call,
      tool,
      parsed: tool
        ? parseToolArguments(tool.inputSchema, call.arguments, tool.prepareArguments?.bind(tool))
        : undefined,
    };
  });

  let settled: ReadonlyMap<string, SettledApproval>;
  if (resumed) {
    settled = resumed;
    for (const { call } of prepared) {
      const given = resumed.get(call.id);
      if (given?.byHuman) {
        context.emit({ type: "approval_resolved", toolCallId: call.id, decision: given.decision });
      }
    }
  } else {
    const phase = await settleApprovals(
      prepared.flatMap(({ call, tool, parsed }) =>
        tool && parsed?.ok ? [{ call, tool, args: parsed.value }] : [],
      ),
      {
        runId: context.runId,
        approver: setup.approver,
        signal: context.signal,
        workspace: setup.workspace,
        requested: (call) => context.emit({ type: "approval_requested", toolCall: call }),
        resolved: (call, decision) =>
          context.emit({ type: "approval_resolved", toolCallId: call.id, decision }),
      },
    );
    // An aborted run does not pause: its calls are answered Cancelled below.
    if (phase.pending.length > 0 && !context.signal.aborted) {
      return { paused: true, pending: phase.pending, decided: phase.decided };
    }
    const map = new Map<string, SettledApproval>();
    for (const [id, decision] of phase.decided) {
      const why = phase.why.get(id);
      map.set(id, { decision, byHuman: false, ...(why === undefined ? {} : { why }) });
    }
    for (const [id, refusal] of phase.refused) {
      map.set(id, { decision: { approved: false }, byHuman: false, refusal });
    }
    settled = map;
  }

  const unrecorded = await recordCalls(
    context,
    prepared.map(({ call, parsed }) => ({ call, repairs: parsed?.ok ? parsed.repairs : [] })),
  );
  if (unrecorded) return unrecorded;

  const names = [...setup.tools.keys()];
  const env: CallEnvironment = {
    runId: context.runId,
    workspace: setup.workspace,
    signal: context.signal,
    defaultTimeoutMs: setup.defaultTimeoutMs,
    hooks,
    progress: (call, data) =>
      context.emit({ type: "tool_progress", toolCallId: call.id, toolName: call.name, data }),
  };
  let infrastructureError: BridleError | undefined;
  const hookApprovals = new HookApprovals(setup.approver, context);
  // Calls start executing in the model's order, whatever order their before_tool_call hooks finish in, so a
  // tool that keeps its own order (an MCP server's writes, taken one at a time) sees them as the model made them.
  const begun = prepared.map(() => {
    let resolve = () => {};
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    return { promise, resolve };
  });
  const runOne = async ({ call, tool, parsed }: PreparedCall, index: number): Promise<void> => {
    const started = performance.now();
    const approval = settled.get(call.id);
    let result: ToolResultMessage;
    let ran = false;
    let executedArgs: unknown;
    if (infrastructureError || hooks.strictFailure || context.signal.aborted) {
      result = cancelledResult(call);
    } else if (approval && !approval.decision.approved) {
      // Rejected calls never reach the tool or its hooks.
      result = refusedCallResult(call, approval);
    } else if (tool && parsed?.ok) {
      const gate = new CancelSwitch();
      // Held in an object: hooks replace it from inside their handlers.
      const current: { args: ParsedArguments } = { args: parsed };
      let askReason: string | undefined;
      const failure = await hooks.fire(
        "before_tool_call",
        {
          toolCall: call,
          // A getter, so each hook sees the arguments the hooks before it replaced.
          get args() {
            return current.args.ok ? current.args.value : undefined;
          },
          cancel: gate.cancel,
          replaceArgs: (value: unknown) => {
            current.args = parseToolArguments(
              tool.inputSchema,
              JSON.stringify(value ?? {}),
              tool.prepareArguments?.bind(tool),
            );
          },
          requireApproval: (reason: string) => {
            askReason ??= reason.trim() === "" ? "no reason given" : reason;
          },
        },
        { subject: call.name, stopped: () => gate.cancelled },
      );
      const args = current.args;
      // A hook's "ask a person" comes after its other verdicts: a call it blocked is never asked about.
      const asked =
        failure || gate.cancelled || !args.ok || askReason === undefined
          ? undefined
          : await hookApprovals.ask(call, tool, args.value, askReason);
      if (failure || gate.cancelled || !args.ok) {
        const why = failure
          ? `a before_tool_call hook failed: ${failure.message}`
          : (gate.reason ??
            `a before_tool_call hook replaced the arguments with invalid ones: ${args.ok ? "" : args.problems.slice(0, 3).join("; ")}`);
        result = failureResult(call, "Denied", failureText("Denied", `the call was blocked: ${why}`));
        context.cancelledToolCalls++;
      } else if (asked && !asked.approved) {
        result = failureResult(
          call,
          "Denied",
          failureText("Denied", `the call was not run: ${asked.reason ?? "it was not approved"}`),
        );
        context.cancelledToolCalls++;
      } else {
        await Promise.all(begun.slice(0, index).map((earlier) => earlier.promise));
        begun[index]?.resolve();
        executedArgs = args.value;
        const outcome = await executeCall(call, tool, args, env, names);
        infrastructureError ??= outcome.infrastructureError;
        result = outcome.result;
        ran = true;
      }
    } else {
      result = (await executeCall(call, tool, parsed, env, names)).result;
    }
    begun[index]?.resolve();
    if (result.errorKind === "Cancelled") context.cancelledToolCalls++;
    // Retry accounting is settled on the tool's own result, before any hook rewrites what the model sees.
    const retryable = result.errorKind !== undefined && RETRYABLE_KINDS.has(result.errorKind);
    if (retryable) context.toolRetries[call.name] = (context.toolRetries[call.name] ?? 0) + 1;
    if (ran) result = await afterToolCall(hooks, call, executedArgs, result, retryable);
    if (setup.finishResult) result = await setup.finishResult(result);
    context.emit({ type: "tool_call_completed", result, durationMs: performance.now() - started });
  };
  if (prepared.some(({ tool }) => tool?.sequential)) {
    for (const [index, item] of prepared.entries()) await runOne(item, index);
  } else {
    await Promise.all(prepared.map(runOne));
  }
  return infrastructureError ? { paused: false, infrastructureError } : { paused: false };
}

/**
 * Records the calls before anything runs. When the record cannot be written, each call is answered
 * Cancelled and the run must end as a store error.
 */
async function recordCalls(
  context: RunContext,
  calls: readonly { readonly call: ToolCallPart; readonly repairs: readonly string[] }[],
): Promise<BatchOutcome | undefined> {
  for (const { call, repairs } of calls)
    context.emit({ type: "tool_call_requested", toolCall: call, repairs });
  const recordError = await context.recorded();
  if (recordError === undefined) return undefined;
  for (const { call } of calls) {
    context.emit({ type: "tool_call_completed", result: cancelledResult(call), durationMs: 0 });
  }
  return {
    paused: false,
    infrastructureError: new BridleError(
      "store_write",
      `recording the run failed: ${errorMessage(recordError)}`,
    ),
  };
}

/** A turn cut off at max_tokens: its calls are recorded and answered, never approved, hooked or run. */
async function answerTruncated(context: RunContext, calls: readonly ToolCallPart[]): Promise<BatchOutcome> {
  const unrecorded = await recordCalls(
    context,
    calls.map((call) => ({ call, repairs: [] })),
  );
  if (unrecorded) return unrecorded;
  for (const call of calls) {
    context.toolRetries[call.name] = (context.toolRetries[call.name] ?? 0) + 1;
    context.emit({ type: "tool_call_completed", result: truncatedCallResult(call), durationMs: 0 });
  }
  return { paused: false };
}

async function afterToolCall(
  hooks: RunHooks,
  call: ToolCallPart,
  args: unknown,
  original: ToolResultMessage,
  retryable: boolean,
): Promise<ToolResultMessage> {
  let current = original;
  await hooks.fire(
    "after_tool_call",
    {
      toolCall: call,
      args,
      // A getter, so each hook sees what the hooks before it rewrote.
      get result() {
        return current;
      },
      retryable,
      rewrite: (content: string | readonly ToolResultContent[]) => {
        const parts = typeof content === "string" ? [{ type: "text" as const, text: content }] : [...content];
        current = { ...current, content: parts };
      },
    },
    { subject: call.name },
  );
  return current;
}
