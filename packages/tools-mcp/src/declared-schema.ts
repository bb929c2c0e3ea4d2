import type { AnyTool } from "@bridle/core";

// Keyed by the built tool, so a harness holding the tool can ask; nothing keeps a tool alive for it.
const declared = new WeakMap<AnyTool, Record<string, unknown>>();

export function rememberDeclaredSchema(tool: AnyTool, schema: Record<string, unknown>): void {
  declared.set(tool, structuredClone(schema));
}

/**
 * The input schema an MCP server declared for this tool, exactly as listed (`$schema`, `$defs`, `$anchor`,
 * composition and conditionals kept, SEP-1613 and SEP-2106): what the bridge enforces. The model is shown
 * a rendering a provider accepts (see the README); this is the source. A copy each time; undefined for a
 * tool that does not come from an MCP server.
 */
export function declaredInputSchema(tool: AnyTool): Record<string, unknown> | undefined {
  const schema = declared.get(tool);
  return schema === undefined ? undefined : structuredClone(schema);
}
