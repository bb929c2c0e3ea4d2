import type { ToolOutput, ToolResultContent } from "@bridle/core";
import type {
  BlobResourceContents,
  CallToolResult,
  ContentBlock,
  TextResourceContents,
} from "@modelcontextprotocol/client";
import type { McpExchange } from "./exchange.js";

/** What interfaces get beside the model-visible content of an MCP call. */
export interface McpCallDetails {
  readonly server: string;
  readonly tool: string;
  /** The tool's `structuredContent`, when it returned one (an object; any JSON value from 2026-07-28 on). */
  readonly structuredContent?: unknown;
  /** Content the model only sees as a placeholder (audio, binary resources). */
  readonly attachments?: readonly {
    readonly type: string;
    readonly mimeType?: string;
    readonly uri?: string;
  }[];
  /** Characters of text cut to keep the result within `maxOutputChars`. */
  readonly truncatedChars?: number;
  /** The request behind the result (session, protocol version, request id, transport), for tracing. */
  readonly mcp?: McpExchange;
}

export interface ShapeOptions {
  readonly server: string;
  readonly tool: string;
  readonly maxOutputChars: number;
  readonly exchange?: McpExchange;
}

/**
 * An MCP tool result as a Bridle result: text joined, images kept as image parts where they stood, other
 * content named in text, `isError` carried over (the model reads the result as a failure), structured
 * content in `details`.
 */
export function shapeCallResult(result: CallToolResult, options: ShapeOptions): ToolOutput<McpCallDetails> {
  const attachments: { type: string; mimeType?: string; uri?: string }[] = [];
  const parts: ToolResultContent[] = [];
  for (const block of result.content ?? []) appendBlock(parts, block, attachments);
  if (parts.length === 0 && result.structuredContent != null) {
    parts.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  }
  const { content, truncatedChars } = boundText(parts, options.maxOutputChars);
  const details: McpCallDetails = {
    server: options.server,
    tool: options.tool,
    ...(result.structuredContent == null ? {} : { structuredContent: result.structuredContent }),
    ...(attachments.length === 0 ? {} : { attachments }),
    ...(truncatedChars > 0 ? { truncatedChars } : {}),
    ...(options.exchange ? { mcp: options.exchange } : {}),
  };
  return {
    content: content.length === 0 ? "(the tool returned no content)" : simplify(content),
    details,
    ...(result.isError ? { isError: true } : {}),
  };
}

/** Resource contents as model-visible parts: text as text, images as images, other binaries named. */
export function resourceContentParts(
  contents: readonly (TextResourceContents | BlobResourceContents)[],
): ToolResultContent[] {
  const parts: ToolResultContent[] = [];
  for (const item of contents) {
    if ("text" in item && typeof item.text === "string") {
      pushText(parts, `[${item.uri}${item.mimeType ? ` ${item.mimeType}` : ""}]\n${item.text}`);
    } else if ("blob" in item && typeof item.blob === "string") {
      if (item.mimeType?.startsWith("image/")) {
        parts.push({ type: "image", mediaType: item.mimeType, data: item.blob });
      } else {
        pushText(parts, binaryNote(item.uri, item.mimeType, item.blob));
      }
    }
  }
  return parts;
}

function appendBlock(
  parts: ToolResultContent[],
  block: ContentBlock,
  attachments: { type: string; mimeType?: string; uri?: string }[],
): void {
  switch (block.type) {
    case "text":
      pushText(parts, block.text);
      return;
    case "image":
      parts.push({ type: "image", mediaType: block.mimeType, data: block.data });
      return;
    case "audio":
      attachments.push({ type: "audio", mimeType: block.mimeType });
      pushText(parts, `[audio ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown]`);
      return;
    case "resource_link":
      pushText(
        parts,
        `[resource link: ${block.name} ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ""}]`,
      );
      return;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string") {
        pushText(parts, `[resource ${resource.uri}]\n${resource.text}`);
      } else if ("blob" in resource && typeof resource.blob === "string") {
        if (resource.mimeType?.startsWith("image/")) {
          parts.push({ type: "image", mediaType: resource.mimeType, data: resource.blob });
        } else {
          attachments.push({
            type: "resource",
            uri: resource.uri,
            ...(resource.mimeType ? { mimeType: resource.mimeType } : {}),
          });
          pushText(parts, binaryNote(resource.uri, resource.mimeType, resource.blob));
        }
      }
      return;
    }
    default:
      pushText(parts, `[unsupported content type ${(block as { type: string }).type}]`);
  }
}

/** Adjacent text blocks become one text part, joined by a newline. */
function pushText(parts: ToolResultContent[], text: string): void {
  const last = parts[parts.length - 1];
  if (last?.type === "text") parts[parts.length - 1] = { type: "text", text: `${last.text}\n${text}` };
  else parts.push({ type: "text", text });
}

function simplify(parts: ToolResultContent[]): string | ToolResultContent[] {
  return parts.length === 1 && parts[0]?.type === "text" ? parts[0].text : parts;
}

function boundText(
  parts: ToolResultContent[],
  max: number,
): { content: ToolResultContent[]; truncatedChars: number } {
  let budget = max;
  let truncatedChars = 0;
  const content = parts.map((part): ToolResultContent => {
    if (part.type !== "text") return part;
    if (part.text.length <= budget) {
      budget -= part.text.length;
      return part;
    }
    const kept = Math.max(budget, 0);
    truncatedChars += part.text.length - kept;
    budget = 0;
    return {
      type: "text",
      text: `${part.text.slice(0, kept)}\n… [${part.text.length - kept} more characters cut from this MCP result]`,
    };
  });
  return { content, truncatedChars };
}

function binaryNote(uri: string, mimeType: string | undefined, blob: string): string {
  return `[binary resource ${uri}${mimeType ? ` ${mimeType}` : ""}, ${base64Bytes(blob)} bytes, not shown]`;
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
