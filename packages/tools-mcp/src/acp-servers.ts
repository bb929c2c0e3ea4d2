import { BridleError } from "@bridle/core";
import type { McpConfigInput, McpServerConfigInput } from "./config.js";

/** A name and value, as ACP lists environment variables and HTTP headers. */
export interface AcpNameValue {
  readonly name: string;
  readonly value: string;
}

/**
 * One MCP server as an Agent Client Protocol client hands it over in `session/new` or `session/load`:
 * a stdio server (`type` absent or "stdio"), or an HTTP or SSE one.
 */
export type AcpMcpServer =
  | {
      readonly type?: "stdio";
      readonly name: string;
      readonly command: string;
      readonly args: readonly string[];
      readonly env: readonly AcpNameValue[];
    }
  | {
      readonly type: "http" | "sse";
      readonly name: string;
      readonly url: string;
      readonly headers: readonly AcpNameValue[];
    };

/**
 * The servers of an ACP session as an `mcpServers` config, so they take the same path as a config file's
 * (`new McpServers(fromAcpSession(params.mcpServers)).background()`). Two servers with one name are an
 * `invalid_config` error rather than one silently replacing the other.
 */
export function fromAcpSession(servers: readonly AcpMcpServer[]): McpConfigInput {
  const mcpServers: Record<string, McpServerConfigInput> = {};
  for (const server of servers) {
    if (Object.hasOwn(mcpServers, server.name)) {
      throw new BridleError("invalid_config", `the ACP session names two MCP servers "${server.name}"`);
    }
    mcpServers[server.name] =
      "url" in server
        ? { type: server.type, url: server.url, headers: pairs(server.headers) }
        : { command: server.command, args: [...server.args], env: pairs(server.env) };
  }
  return { mcpServers };
}

function pairs(list: readonly AcpNameValue[]): Record<string, string> {
  return Object.fromEntries(list.map(({ name, value }) => [name, value]));
}
