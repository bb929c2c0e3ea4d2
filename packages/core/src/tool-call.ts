import { BridleError, errorMessage, ModelRetry, ToolFailure } from "./errors.js";
import { failureText, invalidInputText } from "./failure-text.js";
import type { SubagentHooks } from "./hooks.js";
import type { ToolCallPart, ToolFailureKind, ToolResultMessage } from "./messages.js";
import type { ParsedArguments } from "./repair.js";
import type { AnyTool, ToolOutput } from "./tool.js";
import type { Workspace } from "./workspace.js";

/** What one call needs from its run. */
export interface CallEnvironment {
  readonly runId: string;
  readonly workspace: Workspace;
  readonly signal: AbortSignal;
  readonly defaultTimeoutMs: number;
  readonly hooks?: SubagentHooks;
  progress(call: ToolCallPart, data: unknown): void;
}

export interface CallOutcome {
  readonly result: ToolResultMessage;
  /** Set when the tool hit an infrastructure failure: the run must end. */
  readonly infrastructureError?: BridleError;
}

export function failureResult(
  call: ToolCallPart,
  kind: ToolFailureKind,
  text: string,
  details?: unknown,
): ToolResultMessage {
  return {
    role: "tool",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text }],
    isError: true,
    errorKind: kind,
    ...(details === undefined ? {} : { details }),
  };
}

/**
 * Runs one validated call: the tool under its timeout and the run's abort signal (approval was settled
 * for the whole batch before, in approvals.ts). Every path ends in a result; a tool that ignores abort
 * is left behind rather than holding the run.
 */
export async function executeCall(
  call: ToolCallPart,
  tool: AnyTool | undefined,
  parsed: ParsedArguments | undefined,
  env: CallEnvironment,
  availableTools: readonly string[],
): Promise<CallOutcome> {
  if (!tool || !parsed) {
    const names = availableTools.slice(0, 40).join(", ");
    return {
      result: failureResult(
        call,
        "UnknownTool",
        failureText(
          "UnknownTool",
          `there is no tool named "${call.name.slice(0, 100)}". Available tools: ${names}`,
        ),
      ),
    };
  }
  if (!parsed.ok) {
    return {
      result: failureResult(
        call,
        "InvalidInput",
        invalidInputText(call.name, parsed.problems, parsed.received),
      ),
    };
  }
  if (env.signal.aborted) return { result: cancelledResult(call) };

  const timeoutMs = tool.timeoutMs ?? env.defaultTimeoutMs;
  // One listener on the run's signal per call, removed when the call settles: a long session must not
  // accumulate listeners (each add scans the list, which made turns slower as the session grew).
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const stopped = new Promise<"timeout" | "aborted">((resolve) => {
    onAbort = () => {
      controller.abort(env.signal.reason);
      resolve("aborted");
    };
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        controller.abort(new Error("timeout"));
        resolve("timeout");
      }, timeoutMs);
    }
  });
  env.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const running = tool.execute(parsed.value, {
      signal: controller.signal,
      workspace: env.workspace,
      runId: env.runId,
      toolCallId: call.id,
      progress: (data: unknown) => env.progress(call, data),
      ...(env.hooks ? { hooks: env.hooks } : {}),
    });
    const settled = await Promise.race([running.then((output) => ({ output })), stopped]);
    if (settled === "timeout") {
      running.catch(() => {});
      return {
        result: failureResult(
          call,
          "Timeout",
          failureText("Timeout", `${call.name} did not finish within ${timeoutMs} ms and was stopped`),
        ),
      };
    }
    if (settled === "aborted") {
      running.catch(() => {});
      return { result: cancelledResult(call) };
    }
    return { result: outputResult(call, settled.output) };
  } catch (error) {
    if (error instanceof ToolFailure) {
      return {
        result: failureResult(call, error.kind, failureText(error.kind, error.message), error.details),
      };
    }
    if (error instanceof ModelRetry) {
      return { result: failureResult(call, "RetryRequested", failureText("RetryRequested", error.message)) };
    }
    if (error instanceof BridleError) {
      return {
        result: failureResult(call, "ToolError", failureText("ToolError", error.message)),
        infrastructureError: error,
      };
    }
    if (env.signal.aborted) return { result: cancelledResult(call) };
    return { result: failureResult(call, "ToolError", failureText("ToolError", errorMessage(error))) };
  } finally {
    clearTimeout(timer);
    env.signal.removeEventListener("abort", onAbort);
  }
}

export function cancelledResult(call: ToolCallPart): ToolResultMessage {
  return failureResult(
    call,
    "Cancelled",
    failureText("Cancelled", "the run was aborted before this call finished"),
  );
}

function outputResult(call: ToolCallPart, output: ToolOutput): ToolResultMessage {
  const content =
    typeof output.content === "string" ? [{ type: "text" as const, text: output.content }] : output.content;
  return {
    role: "tool",
    toolCallId: call.id,
    toolName: call.name,
    content,
    isError: output.isError ?? false,
    ...(output.details === undefined ? {} : { details: output.details }),
  };
}
