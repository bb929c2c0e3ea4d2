// Each tool call of a durable run is two checkpointed steps: "started" (recorded before the tool runs)
// and the call itself. An execution that finds "started" recorded and the call not is re-running a call
// that was in flight when a process died: its effect may already be there.
import {
  type AnyTool,
  BridleError,
  type BridleErrorCode,
  errorMessage,
  ModelRetry,
  type ToolCallEnv,
  ToolFailure,
  type ToolFailureKind,
  type ToolOutput,
} from "@bridle/core";
import type { DurableContext } from "./durable-context.js";

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
  /** The call was in flight when an execution died, and its tool cannot tell whether it landed. */
  | { readonly ask: true };

/** Asks a person whether a call that may already have run should run again (durable-approver.ts). */
export type AskRepeat = (tool: AnyTool, args: unknown, toolCallId: string) => Promise<boolean>;

/** Whether running a call a second time is harmless by the tool's own account. */
export function repeatable(tool: AnyTool): boolean {
  const hints = tool.annotations ?? {};
  return hints.read_only === true || hints.idempotent === true || hints.repeat_safe === true;
}

/**
 * `tool` as a durable run executes it. Calls run one at a time, in the model's order (`sequential`), so
 * their steps line up on every execution; the call's timeout is applied inside its step (the harness's
 * would end it on one execution and not on the next).
 */
export function durableTool(
  tool: AnyTool,
  context: DurableContext,
  options: { readonly defaultTimeoutMs: number; readonly askRepeat: AskRepeat },
): AnyTool {
  const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
  return {
    ...tool,
    sequential: true,
    timeoutMs: 0,
    execute: async (args: unknown, ctx: ToolCallEnv) => {
      const id = ctx.toolCallId;
      // "started" is recorded before the tool runs. When its step does not run now, an earlier execution
      // recorded it: if the call's own step then runs, the call was in flight when that execution died.
      let startedNow = false;
      await context.step(`started:${id}`, async () => {
        startedNow = true;
        return true;
      });
      // Progress is dropped: it would reach the stream on the first execution only, and a run's stored
      // events must come out the same on every execution (run-body.ts skips those already stored).
      const attempt = (repeated: boolean) =>
        run(tool, args, { ...ctx, progress: () => {}, ...(repeated ? { repeated: true } : {}) }, timeoutMs);
      let record = await context.step(`call:${id}`, async (): Promise<CallRecord> => {
        if (startedNow || repeatable(tool)) return attempt(!startedNow);
        return { ask: true };
      });
      if ("ask" in record) {
        // The tool cannot tell whether its first attempt landed: a person decides (a durable wait).
        const again = await options.askRepeat(tool, args, id);
        record = await context.step(
          `repeat:${id}`,
          async (): Promise<CallRecord> =>
            again
              ? attempt(true)
              : {
                  failure: {
                    kind: "Denied",
                    message: `not run again: ${tool.name} had started when the process running it stopped and may have taken effect; the user declined to run it a second time. Check its effect before retrying.`,
                  },
                },
        );
      }
      return settle(record);
    },
  };
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
  throw new Error("a repeat decision was not settled");
}

/** What a checkpoint can hold: the JSON form (a tool's details may carry class instances or undefined). */
function plain<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
