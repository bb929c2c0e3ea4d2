import { z } from "zod";
import { failureText } from "./failure-text.js";
import { type ToolCallPart, userText } from "./messages.js";
import type { RunContext } from "./run-context.js";
import type { AnyTool } from "./tool.js";
import { failureResult } from "./tool-call.js";

export const limitsSchema = z
  .object({
    /** Model requests one run may make. */
    maxModelRequests: z.number().int().positive().default(50),
    /** Tool calls one run may make; a batch that would pass it is refused before any call in it runs. */
    maxToolCalls: z.number().int().positive().default(250),
    /** Fractions of a limit at which the model is told, once each, how much is left. */
    warnAt: z.array(z.number().gt(0).lt(1)).default([0.8]),
    /** Model-correctable failures tolerated per tool name, unless the tool sets its own budget. */
    toolRetryBudget: z.number().int().nonnegative().default(5),
    /** Corrective model turns allowed after missing or invalid structured output. */
    outputRetries: z.number().int().nonnegative().default(2),
    /** Default per-call timeout in ms for tools that set none (0: none). */
    toolTimeoutMs: z.number().int().nonnegative().default(0),
  })
  .strict();

export type HarnessLimits = z.output<typeof limitsSchema>;
export type HarnessLimitsInput = z.input<typeof limitsSchema>;

/** The thresholds (counts) crossed by `used` of `max`, from the configured fractions. */
export function crossedThresholds(used: number, max: number, fractions: readonly number[]): number[] {
  const crossed: number[] = [];
  for (const fraction of fractions) {
    const at = Math.max(1, Math.floor(max * fraction));
    if (used >= at) crossed.push(at);
  }
  return crossed;
}

/**
 * Near-limit notices before a model request: each threshold of each budget is told once per run, as a
 * `limit_warning` whose message joins the transcript.
 */
export function warnNearLimits(limits: HarnessLimits, context: RunContext): void {
  const checks = [
    { limit: "model_requests" as const, used: context.modelRequests, max: limits.maxModelRequests },
    { limit: "tool_calls" as const, used: context.toolCalls, max: limits.maxToolCalls },
  ];
  for (const { limit, used, max } of checks) {
    for (const at of crossedThresholds(used, max, limits.warnAt)) {
      const key = `${limit}:${at}`;
      if (context.emittedWarnings.has(key)) continue;
      context.emittedWarnings.add(key);
      const what = limit === "model_requests" ? "model requests" : "tool calls";
      const text = `[harness notice] This run has used ${used} of its ${max} ${what}; ${max - used} remain. Plan to finish within the budget.`;
      context.emit({ type: "limit_warning", limit, used, max, message: userText(text) });
    }
  }
}

/** A batch that would pass max_tool_calls: every call is recorded and answered LimitExceeded, none runs. */
export function refuseBatch(
  limits: HarnessLimits,
  context: RunContext,
  calls: readonly ToolCallPart[],
): void {
  const text = failureText(
    "LimitExceeded",
    `not run: this batch of ${calls.length} calls would pass the run's limit of ${limits.maxToolCalls} tool calls (${context.toolCalls} used)`,
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

/** The first tool that failed more often than its retry budget allows, if any. */
export function exhaustedRetryBudget(
  limits: HarnessLimits,
  tools: ReadonlyMap<string, AnyTool>,
  context: RunContext,
): string | undefined {
  for (const [name, count] of Object.entries(context.toolRetries)) {
    const budget = tools.get(name)?.retryBudget ?? limits.toolRetryBudget;
    if (count > budget) return name;
  }
  return undefined;
}
