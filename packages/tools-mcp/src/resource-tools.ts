import { type AnyTool, defineTool, ToolFailure } from "@bridle/core";
import { z } from "zod";
import type { McpConnection } from "./connection.js";
import { resourceContentParts } from "./result.js";

export const LIST_RESOURCES_TOOL = "mcp_list_resources";
export const READ_RESOURCE_TOOL = "mcp_read_resource";

const MAX_LISTED = 200;

/**
 * Two tools over every server that offers resources, rather than two per server: the model picks the
 * server by name, and the list of servers is part of the schema it sees.
 */
export function resourceTools(connections: readonly McpConnection[], maxOutputChars: number): AnyTool[] {
  const names = connections.map((connection) => connection.name);
  if (names.length === 0) return [];
  const byName = new Map(connections.map((connection) => [connection.name, connection]));
  const serverEnum = z.enum(names as [string, ...string[]]);

  const list = defineTool({
    name: LIST_RESOURCES_TOOL,
    description: `List the resources (and URI templates) that MCP servers offer: ${names.join(", ")}. Read one with ${READ_RESOURCE_TOOL}.`,
    inputSchema: z.object({
      server: serverEnum.optional().describe("Only this server; all of them when left out"),
    }),
    annotations: { read_only: true, idempotent: true },
    timeoutMs: 0,
    async execute({ server }, ctx) {
      const chosen = server === undefined ? connections : [byName.get(server) as McpConnection];
      const sections: string[] = [];
      const details: Record<string, unknown> = {};
      for (const connection of chosen) {
        const { resources, templates } = await connection.listResources(ctx.signal);
        details[connection.name] = { resources, templates };
        const lines = [`${connection.name}: ${resources.length} resources, ${templates.length} templates`];
        for (const resource of resources.slice(0, MAX_LISTED)) {
          const mime = resource.mimeType ? ` (${resource.mimeType})` : "";
          const about = resource.description ? ` — ${resource.description}` : "";
          lines.push(`- ${resource.uri} ${resource.name}${mime}${about}`);
        }
        if (resources.length > MAX_LISTED) lines.push(`- …and ${resources.length - MAX_LISTED} more`);
        for (const template of templates.slice(0, MAX_LISTED)) {
          const about = template.description ? ` — ${template.description}` : "";
          lines.push(`- template ${template.uriTemplate} ${template.name}${about}`);
        }
        sections.push(lines.join("\n"));
      }
      return { content: bound(sections.join("\n\n"), maxOutputChars), details };
    },
  });

  const read = defineTool({
    name: READ_RESOURCE_TOOL,
    description: `Read a resource of an MCP server by its URI (from ${LIST_RESOURCES_TOOL}, a template, or a resource link).`,
    inputSchema: z.object({
      server: serverEnum.describe("The server that offers the resource"),
      uri: z.string().min(1).describe("The resource URI"),
    }),
    annotations: { read_only: true, idempotent: true },
    timeoutMs: 0,
    async execute({ server, uri }, ctx) {
      const connection = byName.get(server) as McpConnection;
      const { result, exchange } = await connection.readResource(uri, ctx.signal);
      const parts = resourceContentParts(result.contents);
      if (parts.length === 0) throw new ToolFailure("NotFound", `${uri} has no readable content`);
      const content = parts.map((part) =>
        part.type === "text" ? { ...part, text: bound(part.text, maxOutputChars) } : part,
      );
      return {
        content,
        details: {
          server,
          uri,
          mimeTypes: result.contents.map((item) => item.mimeType ?? null),
          mcp: exchange,
        },
      };
    },
  });
  return [list, read];
}

function bound(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}\n… [${text.length - max} more characters cut from this MCP result]`;
}
