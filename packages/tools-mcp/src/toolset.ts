import { type AnyTool, errorMessage, mcpToolName, toolSchemaOf } from "@bridle/core";
import type { Tool as McpToolDefinition } from "@modelcontextprotocol/client";
import type { McpConnection } from "./connection.js";
import { buildMcpTool } from "./mcp-tool.js";
import { resourceTools } from "./resource-tools.js";
import { allowsTool, namesNotOffered } from "./tool-filter.js";

/** Something the bridge changed about a server's tools, naming the server. */
export interface McpWarning {
  readonly server: string;
  readonly code:
    | "tools_per_server_capped"
    | "schema_bytes_capped"
    | "tool_definition_repaired"
    | "tool_definition_invalid"
    | "input_schema_unchecked"
    | "tool_filter_unmatched"
    | "config_ignored";
  readonly message: string;
}

/** A server or tool that did not make it into the tool list, and why. */
export interface DiscoveryFailure {
  readonly server: string;
  readonly code: "connect_failed" | "duplicate_tool";
  readonly message: string;
}

/** One server as far as it got: its tools, or why it has none, or nothing yet (still connecting). */
export type ServerOutcome =
  | {
      readonly connection: McpConnection;
      readonly tools: readonly McpToolDefinition[];
      readonly hasResources: boolean;
    }
  | { readonly connection: McpConnection; readonly error: unknown }
  | { readonly connection: McpConnection; readonly pending: true };

export interface ToolsetSettings {
  readonly maxOutputChars: number;
  readonly maxToolsPerServer: number;
  readonly maxSchemaBytes: number;
  readonly resources: boolean;
  readonly requiresApproval: (server: string, tool: string) => boolean;
}

/**
 * The Bridle tools of the servers that are up, in config order (each server's tools by name), so the same
 * servers give the same list whichever connected first: each config filter applied, caps and the schema
 * budget kept, a name two servers would share refused.
 */
export function buildToolset(
  outcomes: readonly ServerOutcome[],
  settings: ToolsetSettings,
  warn: (warning: McpWarning) => void,
): { tools: AnyTool[]; failures: DiscoveryFailure[]; byServer: Map<string, string[]> } {
  const failures: DiscoveryFailure[] = [];
  const byServer = new Map<string, string[]>();
  const tools: AnyTool[] = [];
  const origins = new Map<string, string>();
  const withResources: McpConnection[] = [];
  const budget = new SchemaBudget(settings.maxSchemaBytes);
  const add = (tool: AnyTool, server: string, origin: string): boolean => {
    const earlier = origins.get(tool.name);
    if (earlier !== undefined) {
      failures.push({
        server,
        code: "duplicate_tool",
        message: `${origin} would be named "${tool.name}", which ${earlier} already has; it was not added. Rename the server in the config to tell them apart.`,
      });
      return true;
    }
    if (!budget.take(tool)) return false;
    origins.set(tool.name, origin);
    tools.push(tool);
    byServer.set(server, [...(byServer.get(server) ?? []), tool.name]);
    return true;
  };
  for (const outcome of outcomes) {
    const { connection } = outcome;
    const server = connection.name;
    if ("pending" in outcome) continue;
    if ("error" in outcome) {
      failures.push({ server, code: "connect_failed", message: errorMessage(outcome.error) });
      continue;
    }
    if (outcome.hasResources) withResources.push(connection);
    for (const note of connection.listingNotes()) warn({ server, ...note });
    const filter = connection.config.toolFilter;
    const unmatched = namesNotOffered(filter, new Set(outcome.tools.map((definition) => definition.name)));
    if (unmatched.length > 0) {
      warn({
        server,
        code: "tool_filter_unmatched",
        message: `MCP server "${server}" offers no tool named ${unmatched.map((name) => `"${name}"`).join(", ")}, which its tool filter names`,
      });
    }
    const offered = outcome.tools
      .filter((definition) => allowsTool(filter, server, definition.name))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const maxTools = settings.maxToolsPerServer;
    if (offered.length > maxTools) {
      warn({
        server,
        code: "tools_per_server_capped",
        message: `MCP server "${server}" offers ${offered.length} tools; only the first ${maxTools} by name are used (maxToolsPerServer)`,
      });
    }
    const left: string[] = [];
    for (const definition of offered.slice(0, maxTools)) {
      const built = buildMcpTool(mcpToolName(server, definition.name), connection, definition, {
        maxOutputChars: settings.maxOutputChars,
        requiresApproval: settings.requiresApproval(server, definition.name),
      });
      if (!add(built.tool, server, `tool "${definition.name}" of MCP server "${server}"`)) {
        left.push(definition.name);
      } else if (built.warning) {
        warn({
          server,
          code: "input_schema_unchecked",
          message: `MCP server "${server}", tool "${definition.name}": ${built.warning}`,
        });
      }
    }
    if (left.length > 0) warn(budget.warning(server, left));
  }
  if (settings.resources) {
    for (const tool of resourceTools(withResources, settings.maxOutputChars)) {
      const server = withResources.map((c) => c.name).join(", ");
      if (!add(tool, server, `the built-in MCP resource tool`)) warn(budget.warning(server, [tool.name]));
    }
  }
  return { tools, failures, byServer };
}

/** The bytes of tool definitions left for MCP tools in every model request. */
class SchemaBudget {
  readonly #max: number;
  // Counted as the JSON array the definitions travel in: its brackets, and a comma after each but the last.
  #used = 1;

  constructor(max: number) {
    this.#max = max;
  }

  /** Counts the tool in if it fits (as the model is sent it); false, and nothing counted, if not. */
  take(tool: AnyTool): boolean {
    const bytes = Buffer.byteLength(JSON.stringify(toolSchemaOf(tool))) + 1;
    if (this.#used + bytes > this.#max) return false;
    this.#used += bytes;
    return true;
  }

  warning(server: string, left: readonly string[]): McpWarning {
    const named = left.slice(0, 10).join(", ") + (left.length > 10 ? `, and ${left.length - 10} more` : "");
    return {
      server,
      code: "schema_bytes_capped",
      message: `MCP server "${server}": ${left.length} tool(s) left out to keep MCP tool definitions within ${this.#max} bytes per request (maxSchemaBytes): ${named}`,
    };
  }
}
