import { ToolFailure } from "@bridle/core";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { CompatibilityCallToolResultSchema } from "@modelcontextprotocol/core";

/**
 * A `tools/call` result checked against the specification: one the SDK's schema refuses is that call's
 * failure (the server keeps running), and a 2024-10-07 server's `toolResult` becomes text content.
 */
export function checkedCallResult(raw: unknown, server: string, tool: string): CallToolResult {
  const parsed = CompatibilityCallToolResultSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join(".") || "(result)"}: ${issue.message}`.slice(0, 200));
    throw new ToolFailure(
      "ToolError",
      `MCP server "${server}" returned an invalid result for ${tool} (${problems.join("; ")}); the call failed, the server keeps running`,
    );
  }
  const result = parsed.data;
  if (!("content" in result)) {
    return { content: [{ type: "text", text: JSON.stringify(result.toolResult) }] };
  }
  return result as CallToolResult;
}
