import { mcpToolPrefix } from "@bridle/core";

/** What an MCP-backed tool is: its MCP method, and the server and tool when the name says. */
export interface McpToolName {
  readonly method: "tools/call" | "resources/list" | "resources/read";
  /** Absent for the resource tools, which serve every server (the server is an argument). */
  readonly server?: string;
  readonly tool?: string;
}

/** The two resource tools Bridle's MCP bridge adds over all servers that offer resources. */
const RESOURCE_TOOLS: Readonly<Record<string, McpToolName>> = {
  mcp_list_resources: { method: "resources/list" },
  mcp_read_resource: { method: "resources/read" },
};

/**
 * Reads a Bridle MCP tool name, `mcp_{server}_{tool}`. Given the configured server names, the longest one
 * that prefixes the name wins (server names may hold underscores); without them, the server part is read
 * up to the next underscore.
 */
export function parseMcpToolName(name: string, servers?: readonly string[]): McpToolName | undefined {
  const resource = RESOURCE_TOOLS[name];
  if (resource) return resource;
  if (!name.startsWith("mcp_")) return undefined;
  if (servers?.length) {
    let best: { server: string; tool: string } | undefined;
    for (const server of servers) {
      const prefix = mcpToolPrefix(server);
      if (
        name.length > prefix.length &&
        name.startsWith(prefix) &&
        server.length > (best?.server.length ?? -1)
      ) {
        best = { server, tool: name.slice(prefix.length) };
      }
    }
    if (best) return { method: "tools/call", ...best };
  }
  const match = /^mcp_([A-Za-z0-9-]+)_(.+)$/.exec(name);
  if (!match?.[1] || !match[2]) return undefined;
  return { method: "tools/call", server: match[1], tool: match[2] };
}
