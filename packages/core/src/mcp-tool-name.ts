import { createHash } from "node:crypto";

// Tool names providers accept: ^[A-Za-z0-9_-]{1,64}$.
const MAX_NAME = 64;

function namePart(part: string): string {
  const cleaned = part.replace(/[^A-Za-z0-9_-]/g, "_");
  return cleaned.length === 0 ? "_" : cleaned;
}

/**
 * The Bridle name of an MCP server's tool, `mcp_{server}_{tool}`: characters a tool name cannot hold
 * (dots, spaces, slashes, non-ASCII) become "_", and a name over 64 characters keeps its start and ends
 * with a hash of the full server and tool names, so two long names that share a prefix still differ.
 * One rule for every package: tools-mcp names the tools with it, and a skill's `allowed-tools` entry
 * `mcp__server__tool` finds them with it.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `${mcpToolPrefix(server)}${namePart(tool)}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

/** What every Bridle tool name of an MCP server's tools starts with, `mcp_{server}_`: how a reader finds the server. */
export function mcpToolPrefix(server: string): string {
  return `mcp_${namePart(server)}_`;
}
