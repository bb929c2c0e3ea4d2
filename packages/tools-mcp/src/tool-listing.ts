import type { Client, Tool as McpToolDefinition } from "@modelcontextprotocol/client";
import { ToolSchema } from "@modelcontextprotocol/core";
import { z } from "zod";
import { invalidHeaderParams } from "./header-params.js";

/** A tool definition listing repaired (taken with no arguments) or left out (invalid). */
export interface ListingNote {
  readonly code: "tool_definition_repaired" | "tool_definition_invalid";
  readonly message: string;
}

const ANY_TOOL_LIST = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
/** The most pages of a list this package reads. */
export const PAGE_LIMIT = 20;

/**
 * Every page of the server's tool list, each tool checked on its own: one bad definition costs that tool
 * (named in `notes`), not the server's whole list, and a tool without an input schema takes no arguments.
 */
export async function listAllTools(
  client: Client,
  server: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<{ tools: McpToolDefinition[]; notes: ListingNote[] }> {
  if (!client.getServerCapabilities()?.tools) return { tools: [], notes: [] };
  const tools: McpToolDefinition[] = [];
  const notes: ListingNote[] = [];
  let seen = 0;
  const names = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < PAGE_LIMIT; page++) {
    const result = await client.request(
      { method: "tools/list", ...(cursor ? { params: { cursor } } : {}) },
      ANY_TOOL_LIST,
      { timeout: timeoutMs, ...(signal ? { signal } : {}) },
    );
    for (const raw of result.tools) {
      seen++;
      const checked = checkToolDefinition(raw, names);
      const label = checked.label ?? `number ${seen} in its list`;
      if (checked.note) {
        notes.push({
          code: checked.tool ? "tool_definition_repaired" : "tool_definition_invalid",
          message: `MCP server "${server}", tool ${label}: ${checked.note}`,
        });
      }
      if (checked.tool) tools.push(checked.tool);
    }
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return { tools, notes };
}

const NO_ARGUMENTS = { type: "object", properties: {} } as const;

function checkToolDefinition(
  raw: unknown,
  names: Set<string>,
): { tool?: McpToolDefinition; note?: string; label?: string } {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { note: "not a tool definition; left out" };
  }
  const record = raw as Record<string, unknown>;
  const label = typeof record.name === "string" ? JSON.stringify(record.name.slice(0, 100)) : undefined;
  let note: string | undefined;
  let candidate = record;
  if (record.inputSchema === undefined || record.inputSchema === null) {
    candidate = { ...record, inputSchema: NO_ARGUMENTS };
    note = "has no input schema; taken as taking no arguments";
  }
  const parsed = ToolSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "(definition)";
    return {
      ...(label ? { label } : {}),
      note: `invalid definition (${where}: ${issue?.message}); left out`,
    };
  }
  // A name listed twice is the server's mistake, not a collision between servers: the first one counts.
  if (names.has(parsed.data.name)) return { ...(label ? { label } : {}), note: "listed again; left out" };
  const headers = invalidHeaderParams(parsed.data.inputSchema);
  if (headers) return { ...(label ? { label } : {}), note: `${headers}; left out (SEP-2243)` };
  names.add(parsed.data.name);
  return { tool: parsed.data, ...(note ? { note } : {}), ...(label ? { label } : {}) };
}
