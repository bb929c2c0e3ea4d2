import { type AnyTool, defineTool, type ToolCallEnv, ToolFailure, type ToolOutput } from "@bridle/core";
import type { z } from "zod";

/** How a tool looks in another vocabulary: its name, its argument shape, and its result's shape. */
export interface ToolAdapter<S extends z.ZodType> {
  readonly name: string;
  /** Default: the underlying tool's description. */
  readonly description?: string;
  /** The arguments the model sends, as this vocabulary names them. Enforced on every call. */
  readonly inputSchema: S;
  /** The underlying tool's arguments (checked against its own schema before it runs). */
  toArgs(args: z.output<S>): unknown;
  /** The result as this vocabulary shapes it; default: the underlying tool's, unchanged. */
  result?(output: ToolOutput, args: z.output<S>): ToolOutput;
}

/**
 * The same implementation under another name and argument shape. The underlying tool's annotations,
 * ordering, timeout, retry budget and per-call approval carry over (approval sees the converted
 * arguments, so a command policy judges exactly what will run).
 */
export function adaptTool<S extends z.ZodType>(tool: AnyTool, adapter: ToolAdapter<S>): AnyTool {
  const convert = (args: z.output<S>): unknown => {
    const parsed = tool.inputSchema.safeParse(adapter.toArgs(args));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? ` (${issue.path.join(".")})` : "";
      throw new ToolFailure(
        "InvalidInput",
        `${adapter.name}: ${issue?.message ?? "invalid arguments"}${where}`,
      );
    }
    return parsed.data;
  };
  const needsApproval = tool.needsApproval;
  const approvalScope = tool.approvalScope;
  return defineTool({
    name: adapter.name,
    description: adapter.description ?? tool.description,
    inputSchema: adapter.inputSchema,
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(tool.sequential ? { sequential: true } : {}),
    ...(tool.retryBudget === undefined ? {} : { retryBudget: tool.retryBudget }),
    ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
    ...(needsApproval
      ? { needsApproval: (args: z.output<S>, env) => needsApproval.call(tool, convert(args), env) }
      : {}),
    // "Always" reaches what the underlying tool says for the converted call (one command's rule), never wider.
    ...(approvalScope
      ? { approvalScope: (args: z.output<S>, env) => approvalScope.call(tool, convert(args), env) }
      : {}),
    async execute(args: z.output<S>, env: ToolCallEnv): Promise<ToolOutput> {
      const output = await tool.execute(convert(args), env);
      return adapter.result ? adapter.result(output, args) : output;
    },
  });
}

/** The text of a result whose content is text (every filesystem and shell tool's is). */
export function textOf(output: ToolOutput): string {
  if (typeof output.content === "string") return output.content;
  return output.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}
