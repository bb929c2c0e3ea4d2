import {
  type AnyTool,
  type Approver,
  Harness,
  type RunResult,
  type ToolOutput,
  type ToolResultMessage,
} from "@bridle/core";
import { ScriptedModel } from "../scripted-model.js";

/** A tool wrapped to count its executions and keep their promises, with a few fields overridden. */
export interface ObservedTool {
  readonly tool: AnyTool;
  readonly executions: Promise<ToolOutput>[];
}

const approveAll: Approver = { decide: async () => ({ approved: true }) };

/**
 * Delegates to `tool` (its methods called on the tool itself, so classes with private fields work) and
 * records every execution; its declaration (format, prepareArguments, approval) is kept as it is. The retry budget is lifted so that many refused calls do not end the run.
 */
export function observe(tool: AnyTool, overrides: { readonly timeoutMs?: number } = {}): ObservedTool {
  const executions: Promise<ToolOutput>[] = [];
  const wrapped: AnyTool = {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.format ? { format: tool.format } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(tool.sequential === undefined ? {} : { sequential: tool.sequential }),
    retryBudget: 1_000,
    ...((overrides.timeoutMs ?? tool.timeoutMs) ? { timeoutMs: overrides.timeoutMs ?? tool.timeoutMs } : {}),
    // The tool's own argument spellings (aliases) are part of what the suite checks through a harness.
    ...(tool.prepareArguments
      ? { prepareArguments: (raw) => tool.prepareArguments?.(raw) ?? { args: raw, repairs: [] } }
      : {}),
    ...(tool.needsApproval
      ? { needsApproval: (args, context) => tool.needsApproval?.(args, context) ?? false }
      : {}),
    execute(args, ctx) {
      const running = tool.execute(args, ctx);
      executions.push(running);
      return running;
    },
  };
  return { tool: wrapped, executions };
}

export interface CallsOutcome {
  readonly run: RunResult;
  /** The tool results, in the order the calls were made. */
  readonly results: readonly ToolResultMessage[];
}

/**
 * Runs one model turn that makes `calls` (raw argument texts) to the tool, then a final answer, through a
 * real Harness with an approver that allows everything.
 */
export async function runCalls(
  tool: AnyTool,
  calls: readonly string[],
  workspace: string,
  signal?: AbortSignal,
): Promise<CallsOutcome> {
  const model = new ScriptedModel([
    { toolCalls: calls.map((args, i) => ({ id: `conformance_${i}`, name: tool.name, arguments: args })) },
    { text: "done" },
  ]);
  const harness = new Harness({
    model,
    tools: [tool],
    workspace,
    approver: approveAll,
    limits: { maxToolCalls: calls.length + 1, toolRetryBudget: 1_000 },
  });
  const run = await harness.run({ prompt: "conformance check", ...(signal ? { signal } : {}) });
  const results = run.messages.filter((message): message is ToolResultMessage => message.role === "tool");
  const order = new Map(calls.map((_, i) => [`conformance_${i}`, i]));
  return {
    run,
    results: [...results].sort((a, b) => (order.get(a.toolCallId) ?? 0) - (order.get(b.toolCallId) ?? 0)),
  };
}

/** Whether a promise settles (either way) within `ms`: a bound that catches a hang, not a speed target. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      hang,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
