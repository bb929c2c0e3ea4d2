import {
  type AnyTool,
  BridleError,
  defineTool,
  Harness,
  type HarnessLimitsInput,
  type Model,
  type ModelOptions,
  type OutputSpec,
  type RunEvent,
  type RunUsage,
} from "@bridle/core";
import { z } from "zod";
import { mapConcurrent } from "./concurrency.js";

export interface ParallelLlmOptions {
  /** The model every prompt goes to. */
  readonly model: Model;
  /** Prompts in flight at once (default 4). */
  readonly concurrency?: number;
  /** Prompts one call may give (default 32). */
  readonly maxPrompts?: number;
  /** A system prompt for every entry (the model may add its own per call). */
  readonly system?: string;
  /** Structured output for every entry: each answer is validated (and corrected) on its own. */
  readonly output?: OutputSpec;
  /** Per entry; `maxModelRequests` defaults to one request plus the output retries. */
  readonly limits?: HarnessLimitsInput;
  readonly modelOptions?: ModelOptions;
  /** The tool's name (default "parallel_llm"). */
  readonly name?: string;
  /** Every event of every entry's run. */
  readonly onEvent?: (event: RunEvent) => void;
}

/** One entry of a parallel_llm result: its answer, or why it has none. */
export type ParallelLlmEntry =
  | { readonly index: number; readonly ok: true; readonly text: string; readonly output?: unknown }
  | {
      readonly index: number;
      readonly ok: false;
      readonly error: { readonly code: string; readonly message: string };
    };

/**
 * parallel_llm: independent one-shot prompts (no tools, no shared context) run concurrently under a limit.
 * Each entry is a separate run, so one failing (a provider error, an answer that stays invalid) is
 * reported in its place and the others are unaffected.
 */
export function createParallelLlmTool(options: ParallelLlmOptions): AnyTool {
  const concurrency = options.concurrency ?? 4;
  const maxPrompts = options.maxPrompts ?? 32;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new BridleError("invalid_config", "parallel_llm concurrency must be a positive integer");
  }
  if (!Number.isInteger(maxPrompts) || maxPrompts < 1) {
    throw new BridleError("invalid_config", "parallel_llm maxPrompts must be a positive integer");
  }
  const retries = options.limits?.outputRetries ?? 2;
  const harness = new Harness({
    model: options.model,
    limits: {
      maxModelRequests: 1 + (options.output && options.output.mode !== "text" ? retries : 0),
      ...options.limits,
    },
    ...(options.output ? { output: options.output } : {}),
    ...(options.modelOptions ? { modelOptions: options.modelOptions } : {}),
    ...(options.system ? { system: options.system } : {}),
    agentName: options.name ?? "parallel_llm",
  });
  const structured = options.output !== undefined && options.output.mode !== "text";
  return defineTool({
    name: options.name ?? "parallel_llm",
    description: `Run up to ${maxPrompts} independent one-shot prompts at once (${concurrency} at a time) and get every answer back in order. Each prompt is answered on its own, with no tools and no memory of this conversation: put everything it needs in the prompt. Use it for fan-out work such as classifying, summarizing or drafting many items.${structured ? " Each answer is structured JSON." : ""}`,
    inputSchema: z.object({
      prompts: z
        .array(z.string().min(1))
        .min(1)
        .max(maxPrompts)
        .describe("The prompts, answered independently"),
    }),
    annotations: { read_only: true },
    execute: async ({ prompts }, ctx) => {
      let done = 0;
      const usages: RunUsage[] = [];
      const entries = await mapConcurrent(
        prompts.length,
        concurrency,
        async (index): Promise<ParallelLlmEntry> => {
          if (ctx.signal.aborted)
            return { index, ok: false, error: { code: "aborted", message: "the call was aborted" } };
          const stream = harness.stream({
            prompt: prompts[index] as string,
            parentRunId: ctx.runId,
            parentToolCallId: ctx.toolCallId,
            signal: ctx.signal,
          });
          for await (const event of stream) options.onEvent?.(event);
          const result = await stream.result;
          usages.push(result.usage);
          ctx.progress({ type: "parallel_llm", done: ++done, total: prompts.length });
          if (result.stopReason !== "completed") {
            return {
              index,
              ok: false,
              error: {
                code: result.error?.code ?? result.stopReason,
                message: result.error?.message ?? result.stopReason,
              },
            };
          }
          return {
            index,
            ok: true,
            text: result.finalText,
            ...(structured ? { output: result.output } : {}),
          };
        },
      );
      const failed = entries.filter((entry) => !entry.ok).length;
      const report = { results: entries, succeeded: entries.length - failed, failed };
      return {
        content: JSON.stringify(report, null, 2),
        details: { ...report, tokens: sumTokens(usages) },
        isError: failed === entries.length,
      };
    },
  });
}

function sumTokens(usages: readonly RunUsage[]) {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const usage of usages) {
    inputTokens += usage.tokens.inputTokens;
    outputTokens += usage.tokens.outputTokens;
  }
  return { inputTokens, outputTokens };
}
