import { randomUUID } from "node:crypto";
import type { Tool as AISDKTool } from "@ai-sdk/provider-utils";
import { jsonSchema } from "@ai-sdk/provider-utils";
import {
  type AnyTool,
  type Approver,
  executeCall,
  limitsSchema,
  parseToolArguments,
  refusedCallResult,
  type SettledApproval,
  settleApprovals,
  type ToolCallPart,
  type ToolResultMessage,
  toolJsonSchema,
  type Workspace,
} from "@bridle/core";
import { toolOutput } from "./prompt.js";

export interface AISDKToolsOptions {
  /** Where the tools work: file tools resolve paths in it and refuse what it protects. */
  readonly workspace: Workspace;
  /**
   * Decides calls that need approval (the tool's `requires_approval` or `needsApproval`, or every call
   * for an approver with `scope: "every_call"`), as in a Bridle run. Its "ask" becomes the AI SDK's own
   * approval request (`needsApproval`), which the application answers; without an approver, such calls
   * are refused.
   */
  readonly approver?: Approver;
  /** The run id tools and the approver see (default: a new one per `toAISDKTools` call). */
  readonly runId?: string;
  /** Milliseconds before a call without its own `timeoutMs` is stopped (default: a Bridle run's default). */
  readonly timeoutMs?: number;
  /** Progress a tool reports while it runs (output lines of a command), with its call. */
  onProgress?(call: ToolCallPart, data: unknown): void;
}

/**
 * Bridle tools as an AI SDK tool set, for `generateText` and `streamText`. Each call is checked and run as
 * a Bridle run checks and runs it: arguments validated by the tool's zod schema (with its repairs), an
 * invalid call answered with an InvalidInput result the model can correct, approval settled by the
 * approver, the tool run under its timeout and the AI SDK's abort signal. Each result is the
 * `ToolResultMessage` a run would record (its `details` for the application); the model sees its content.
 */
export function toAISDKTools(
  tools: readonly AnyTool[],
  options: AISDKToolsOptions,
): Record<string, AISDKTool<unknown, ToolResultMessage>> {
  const runId = options.runId ?? randomUUID();
  const names = tools.map((tool) => tool.name);
  const set: Record<string, AISDKTool<unknown, ToolResultMessage>> = {};
  for (const tool of tools) {
    // Settled in needsApproval, read by execute: the AI SDK asks before it runs each call.
    const decisions = new Map<string, SettledApproval>();
    set[tool.name] = {
      description: tool.description,
      // No validation here: the tool's own schema checks the call in execute, so an invalid call reaches
      // the model as a result it can fix rather than failing the AI SDK's step.
      inputSchema: jsonSchema(toolJsonSchema(tool.inputSchema)),
      needsApproval: async (input, { toolCallId }) => {
        const call = callOf(tool, toolCallId, input);
        const parsed = parseToolArguments(
          tool.inputSchema,
          call.arguments,
          tool.prepareArguments?.bind(tool),
        );
        if (!parsed.ok) return false;
        const phase = await settleApprovals([{ call, tool, args: parsed.value }], {
          runId,
          approver: options.approver,
          // The AI SDK gives no signal here; the call's own signal stops it once it runs.
          signal: new AbortController().signal,
          workspace: options.workspace,
          requested: () => {},
          resolved: () => {},
        });
        const refusal = phase.refused.get(call.id);
        if (refusal !== undefined)
          decisions.set(call.id, { decision: { approved: false }, byHuman: false, refusal });
        const decided = phase.decided.get(call.id);
        const why = phase.why.get(call.id);
        if (decided) decisions.set(call.id, { decision: decided, byHuman: false, ...(why ? { why } : {}) });
        return phase.pending.length > 0;
      },
      execute: async (input, { toolCallId, abortSignal }) => {
        const call = callOf(tool, toolCallId, input);
        const settled = decisions.get(toolCallId);
        decisions.delete(toolCallId);
        // Refused by the approver: answered in a Bridle run's own words, never reaching the tool.
        if (settled && !settled.decision.approved) return refusedCallResult(call, settled);
        const parsed = parseToolArguments(
          tool.inputSchema,
          call.arguments,
          tool.prepareArguments?.bind(tool),
        );
        const outcome = await executeCall(
          call,
          tool,
          parsed,
          {
            runId,
            workspace: options.workspace,
            signal: abortSignal ?? new AbortController().signal,
            defaultTimeoutMs: options.timeoutMs ?? limitsSchema.parse({}).toolTimeoutMs,
            progress: (part, data) => options.onProgress?.(part, data),
          },
          names,
        );
        // An infrastructure failure ends a Bridle run; in the AI SDK it fails the step the same way.
        if (outcome.infrastructureError) throw outcome.infrastructureError;
        return outcome.result;
      },
      toModelOutput: ({ output }) => toolOutput(output.content, output.isError),
    };
  }
  return set;
}

function callOf(tool: AnyTool, id: string, input: unknown): ToolCallPart {
  return { type: "tool_call", id, name: tool.name, arguments: JSON.stringify(input ?? {}) };
}
