// Each attempt of a tool call of a durable run is two checkpointed steps: "started" (recorded before the
// tool runs) and the attempt itself. An execution that finds "started" recorded and the attempt not is
// looking at an attempt that was in flight when a process died: its effect may already be there.
import { createHash } from "node:crypto";
import {
  type AnyTool,
  type ApprovalDecision,
  BridleError,
  type BridleErrorCode,
  type ChildRuns,
  errorMessage,
  ModelRetry,
  type ToolCallEnv,
  ToolFailure,
  type ToolFailureKind,
  type ToolOutput,
} from "@bridle/core";
import type { DurableContext } from "./durable-context.js";
import { durableModel } from "./durable-model.js";

/** A call's end as recorded in its step: plain data, turned back into the tool's result or throw. */
type CallRecord =
  | { readonly output: ToolOutput }
  | {
      readonly failure: {
        readonly kind: ToolFailureKind;
        readonly message: string;
        readonly details?: unknown;
      };
    }
  | { readonly retry: string }
  | { readonly infrastructure: { readonly code: BridleErrorCode; readonly message: string } }
  | { readonly error: string }
  /** This attempt had started when an execution died: its effect may or may not be there. */
  | { readonly interrupted: true };

/**
 * Asks a person whether a call that may already have run should run again, as attempt `attempt`
 * (durable-approver.ts). Resolves with the decision (a refusal's reason is told to the model).
 */
export type AskRepeat = (
  tool: AnyTool,
  args: unknown,
  toolCallId: string,
  attempt: number,
) => Promise<ApprovalDecision>;

/** What a run's session records of each repeat (a `tool_progress` event of the call, before its result). */
export interface DurableRepeatNote {
  /** Tells this progress data from a tool's own. */
  readonly durable: "repeat";
  /** The attempt this note is about (1: the first repeat). */
  readonly attempt: number;
  /** Whether it ran: declined repeats end the call as Denied. */
  readonly ran: boolean;
  /** Who allowed or declined it: "tool" (read-only, idempotent or repeat-safe) or "person". */
  readonly decidedBy: "tool" | "person";
}

export interface DurableToolOptions {
  readonly defaultTimeoutMs: number;
  readonly askRepeat: AskRepeat;
  /** Put before step names and call ids: a child run's calls are named under the call that started it. */
  readonly prefix?: string;
  /**
   * Calls of this run whose result the session already holds (stored by an earlier execution); "all" for
   * the calls of a child whose spawning call's result the session holds (the child had finished).
   */
  readonly completedBefore?: ReadonlySet<string> | "all";
}

/** Whether running a call a second time is harmless by the tool's own account. */
export function repeatable(tool: AnyTool): boolean {
  const hints = tool.annotations ?? {};
  return hints.read_only === true || hints.idempotent === true || hints.repeat_safe === true;
}

/**
 * `tool` as a durable run executes it. Calls run one at a time, in the model's order (`sequential`), so
 * their steps line up on every execution; the call's timeout is applied inside its step (the harness's
 * would end it on one execution and not on the next).
 *
 * Every attempt n of a call is two steps: `started:<id>:<n>`, recorded before the tool runs, then
 * `call:<id>:<n>`. When the call step runs in an execution that did not record its "started" (an earlier
 * one did, and died), attempt n was in flight: the step records that instead of running the tool, and
 * attempt n+1 follows only if the tool says a repeat is harmless or a person says so. An approved repeat
 * is an attempt like any other, with its own "started": a crash inside it asks again.
 */
export function durableTool(tool: AnyTool, context: DurableContext, options: DurableToolOptions): AnyTool {
  const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
  const prefix = options.prefix ?? "";
  // The tool itself is the prototype: a tool whose fields are inherited (a permission mode's ask-first
  // wrapper, a class instance) keeps its name and schema, which a spread would drop.
  const wrapped: Pick<AnyTool, "sequential" | "timeoutMs" | "execute"> = {
    sequential: true,
    timeoutMs: 0,
    execute: async (args: unknown, ctx: ToolCallEnv) => {
      const id = ctx.toolCallId;
      if (tool.annotations?.starts_runs === true) return startsRuns(tool, args, ctx, context, options);
      // The tool's own progress is dropped: it would reach the stream on the first execution only, and a
      // run's stored events must come out the same on every execution (run-body.ts skips those stored).
      // The repeat notes below come from checkpoints, so every execution emits them the same.
      const note = (repeat: DurableRepeatNote) => ctx.progress(repeat);
      for (let attempt = 0; ; attempt++) {
        let startedNow = false;
        await context.step(`${prefix}started:${id}:${attempt}`, async () => {
          startedNow = true;
          // The session holds this call's result (or its spawning call's), so an earlier execution ran it
          // to its end: its checkpoints were deleted. Running it as new would repeat its effect unasked.
          if (attempt === 0 && finishedBefore(options, id)) {
            throw context.refuse(
              new BridleError(
                "envelope_tampered",
                `refused: call ${prefix}${id} (${tool.name}) of run ${context.runId} finished in an earlier execution (the session holds its result) but its checkpoints are gone from the database (deleted); it was not run again`,
              ),
            );
          }
          return true;
        });
        const record = await context.step(
          `${prefix}call:${id}:${attempt}`,
          async (): Promise<CallRecord> =>
            startedNow
              ? run(
                  tool,
                  args,
                  { ...ctx, progress: () => {}, ...(attempt > 0 ? { repeated: true } : {}) },
                  timeoutMs,
                )
              : { interrupted: true },
        );
        if (!("interrupted" in record)) return settle(record);
        const byTool = repeatable(tool);
        const decision: ApprovalDecision = byTool
          ? { approved: true }
          : await options.askRepeat(tool, args, `${prefix}${id}`, attempt + 1);
        note({
          durable: "repeat",
          attempt: attempt + 1,
          ran: decision.approved,
          decidedBy: byTool ? "tool" : "person",
        });
        if (!decision.approved) {
          // The person's reason, as a refused approval carries it (core's rejected result: "…: reason").
          const said = decision.reason ? `: ${decision.reason}` : "";
          return settle({
            failure: {
              kind: "Denied",
              message: `not run again: ${tool.name} had started when the process running it stopped and may have taken effect; the user declined to run it a second time${said}. Check its effect before retrying.`,
            },
          });
        }
      }
    },
  };
  return Object.assign(Object.create(tool) as AnyTool, wrapped);
}

/**
 * A call whose work is child runs (`starts_runs`: a subagent). It is not one step: the child's model
 * requests and tool calls are steps of their own, named under this call (`<id>/model:0`,
 * `<id>/started:<child call>:0`…), so a crash inside the child replays what it had done and repeats
 * nothing that was recorded. Its result is then recorded as `call:<id>`. No timeout applies (the child
 * has its own limits), and the child's events reach the stream as this call's progress: they come from
 * its steps, the same on every execution.
 */
async function startsRuns(
  tool: AnyTool,
  args: unknown,
  ctx: ToolCallEnv,
  context: DurableContext,
  options: DurableToolOptions,
): Promise<ToolOutput> {
  const outer = options.prefix ?? "";
  const prefix = `${outer}${ctx.toolCallId}/`;
  const childRuns: ChildRuns = {
    runId: childRunId(context.runId, prefix),
    model: (model) => durableModel(model, context, prefix),
    tool: (child) =>
      durableTool(child, context, {
        ...options,
        prefix,
        // A child whose spawning call has its result in the session had run to its end: each of its calls
        // has its checkpoints, unless they were deleted.
        completedBefore: finishedBefore(options, ctx.toolCallId) ? "all" : new Set(),
      }),
    approver: (approver) => ({
      ...(approver.scope ? { scope: approver.scope } : {}),
      decide: (request, signal) =>
        context.step(`${prefix}approval:${request.toolCall.id}`, () => approver.decide(request, signal)),
    }),
  };
  const record = await run(tool, args, { ...ctx, childRuns }, 0);
  return settle(await context.step(`${outer}call:${ctx.toolCallId}`, async () => record));
}

function finishedBefore(options: DurableToolOptions, id: string): boolean {
  const completed = options.completedBefore;
  return completed === "all" || completed?.has(id) === true;
}

/** A child run's id, the same on every execution: derived from the run's and the call's. */
function childRunId(runId: string, prefix: string): string {
  const hex = createHash("sha256").update(`${runId}\n${prefix}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

async function run(tool: AnyTool, args: unknown, ctx: ToolCallEnv, timeoutMs: number): Promise<CallRecord> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    if (timeoutMs > 0)
      timer = setTimeout(() => {
        controller.abort(new Error("timeout"));
        resolve("timeout");
      }, timeoutMs);
  });
  try {
    const running = tool.execute(args, { ...ctx, signal: controller.signal });
    const settled = await Promise.race([running.then((output) => ({ output })), timedOut]);
    if (settled === "timeout") {
      running.catch(() => {});
      return {
        failure: {
          kind: "Timeout",
          message: `${tool.name} did not finish within ${timeoutMs} ms and was stopped`,
        },
      };
    }
    return { output: plain(settled.output) };
  } catch (error) {
    if (error instanceof ToolFailure) {
      return {
        failure: {
          kind: error.kind,
          message: error.message,
          ...(error.details === undefined ? {} : { details: plain(error.details) }),
        },
      };
    }
    if (error instanceof ModelRetry) return { retry: error.message };
    if (error instanceof BridleError) return { infrastructure: { code: error.code, message: error.message } };
    return { error: errorMessage(error) };
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
}

function settle(record: CallRecord): ToolOutput {
  if ("output" in record) return record.output;
  if ("failure" in record) {
    const { kind, message, details } = record.failure;
    throw new ToolFailure(kind, message, details === undefined ? undefined : { details });
  }
  if ("retry" in record) throw new ModelRetry(record.retry);
  if ("infrastructure" in record)
    throw new BridleError(record.infrastructure.code, record.infrastructure.message);
  if ("error" in record) throw new Error(record.error);
  throw new Error("an interrupted attempt was not settled");
}

/** What a checkpoint can hold: the JSON form (a tool's details may carry class instances or undefined). */
function plain<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
