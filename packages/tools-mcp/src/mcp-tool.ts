import type { AnyTool, ToolAnnotations } from "@bridle/core";
import type { Tool as McpToolDefinition } from "@modelcontextprotocol/client";
import type { McpConnection } from "./connection.js";
import { rememberDeclaredSchema } from "./declared-schema.js";
import { inputSchemaFromJson } from "./json-schema.js";
import { shapeCallResult } from "./result.js";

export interface BuildOptions {
  readonly maxOutputChars: number;
  readonly requiresApproval: boolean;
}

export interface BuiltTool {
  readonly tool: AnyTool;
  readonly warning?: string;
}

/** MCP's hints under Bridle's names; a hint the server leaves out is false. */
export function mapAnnotations(definition: McpToolDefinition, requiresApproval: boolean): ToolAnnotations {
  const hints = definition.annotations;
  return {
    read_only: hints?.readOnlyHint ?? false,
    destructive: hints?.destructiveHint ?? false,
    idempotent: hints?.idempotentHint ?? false,
    open_world: hints?.openWorldHint ?? false,
    ...(requiresApproval ? { requires_approval: true } : {}),
  };
}

/** A Bridle tool that calls one tool of one MCP server. */
export function buildMcpTool(
  name: string,
  connection: McpConnection,
  definition: McpToolDefinition,
  options: BuildOptions,
): BuiltTool {
  const { schema, warning } = inputSchemaFromJson(definition.inputSchema);
  const annotations = mapAnnotations(definition, options.requiresApproval);
  // Only a server's explicit promise lets calls overlap; a missing hint means the tool may write.
  const readOnly = annotations.read_only === true;
  const tool: AnyTool = {
    name,
    description:
      definition.description?.trim() ||
      definition.title ||
      `The "${definition.name}" tool of MCP server "${connection.name}"`,
    inputSchema: schema,
    annotations,
    // The call's own timer, which progress notifications push back, replaces the harness's fixed one.
    timeoutMs: 0,
    async execute(args: Record<string, unknown>, ctx) {
      const call = () => connection.callTool(definition.name, args, ctx);
      const { result, exchange } = readOnly ? await call() : await connection.inOrder(ctx.signal, call);
      return shapeCallResult(result, {
        server: connection.name,
        tool: definition.name,
        maxOutputChars: options.maxOutputChars,
        exchange,
      });
    },
  };
  rememberDeclaredSchema(tool, definition.inputSchema);
  return warning === undefined ? { tool } : { tool, warning };
}
