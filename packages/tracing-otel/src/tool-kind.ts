/** The MCP server and tool behind a Bridle tool name, when it is one. */
export interface McpToolName {
  readonly server: string;
  readonly tool: string;
}

/**
 * Bridle's MCP bridge names tools `mcp_{server}_{tool}`. The server part is read up to the next underscore,
 * so a server whose name holds one needs its own parser (the `mcpToolName` option).
 */
export function parseMcpToolName(name: string): McpToolName | undefined {
  const match = /^mcp_([A-Za-z0-9-]+)_(.+)$/.exec(name);
  if (!match?.[1] || !match[2]) return undefined;
  return { server: match[1], tool: match[2] };
}
