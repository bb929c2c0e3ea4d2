import type { Attributes } from "@opentelemetry/api";
import { ATTR } from "./attributes.js";

const METHODS = new Set(["tools/call", "resources/list", "resources/read"]);
const TRANSPORTS: Readonly<Record<string, { network: string; protocol?: string }>> = {
  stdio: { network: "pipe" },
  "streamable-http": { network: "tcp", protocol: "http" },
  sse: { network: "tcp", protocol: "http" },
};

/**
 * The MCP conventions' attributes from a tool result's `details.mcp`, the facts `@bridle/tools-mcp` records
 * for the request behind a call (read by shape, not by import: any MCP bridge may write them). Only fields
 * of the expected type are taken; anything else in the details is ignored. Undefined when there are none.
 */
export function mcpExchangeAttributes(details: unknown): Attributes | undefined {
  const facts = recordAt(details, "mcp");
  if (!facts) return undefined;
  const method = text(facts.method);
  if (method === undefined || !METHODS.has(method)) return undefined;
  const attributes: Attributes = { [ATTR.mcpMethodName]: method };
  const put = (key: string, value: string | number | undefined) => {
    if (value !== undefined) attributes[key] = value;
  };
  put(ATTR.mcpServer, text(facts.server));
  // The server's own name for the tool, exactly (the prefixed Bridle name cannot always be read back).
  put(ATTR.mcpTool, text(facts.tool));
  put(ATTR.mcpSessionId, text(facts.sessionId));
  put(ATTR.mcpProtocolVersion, text(facts.protocolVersion));
  put(ATTR.jsonrpcRequestId, text(facts.requestId));
  put(ATTR.mcpResourceUri, text(facts.resourceUri));
  put(ATTR.serverAddress, text(facts.serverAddress));
  const port = facts.serverPort;
  if (typeof port === "number" && Number.isInteger(port) && port > 0 && port < 65536) {
    attributes[ATTR.serverPort] = port;
  }
  const code = facts.errorCode;
  if (typeof code === "number" && Number.isInteger(code))
    attributes[ATTR.rpcResponseStatusCode] = String(code);
  const transport = text(facts.transport);
  const kind = transport === undefined ? undefined : TRANSPORTS[transport];
  if (transport !== undefined && kind) {
    attributes[ATTR.mcpTransport] = transport;
    attributes[ATTR.networkTransport] = kind.network;
    if (kind.protocol) attributes[ATTR.networkProtocolName] = kind.protocol;
  }
  return attributes;
}

function recordAt(value: unknown, key: string): Record<string, unknown> | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const inner = (value as Record<string, unknown>)[key];
  if (inner === null || typeof inner !== "object" || Array.isArray(inner)) return undefined;
  return inner as Record<string, unknown>;
}

/** A short non-empty string, or nothing (a fact is an identifier, never a payload). */
function text(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 && value.length <= 256 ? value : undefined;
}
