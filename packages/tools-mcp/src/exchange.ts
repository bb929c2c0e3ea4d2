import type { TransportKind } from "./transport.js";

/**
 * The facts of one MCP request behind a tool call, in a tool result's `details.mcp` (failures too), so
 * tracing can give the call's span the OpenTelemetry MCP attributes (`mcp.method.name`, `mcp.session.id`,
 * `mcp.protocol.version`, `jsonrpc.request.id`, `network.transport`, `server.address`, …) without this package
 * knowing about tracing. Plain JSON.
 */
export interface McpExchange {
  /** The MCP method the call made. */
  readonly method: "tools/call" | "resources/list" | "resources/read";
  /** The server's name in the config. */
  readonly server: string;
  /** The tool's own name on the server (the model sees the prefixed Bridle name). */
  readonly tool?: string;
  /** How the server is reached. */
  readonly transport: TransportKind;
  /** The protocol version `initialize` settled on. */
  readonly protocolVersion?: string;
  /** The Streamable HTTP session (`Mcp-Session-Id`); stdio and SSE have none the client sees. */
  readonly sessionId?: string;
  /** The JSON-RPC id of the (last) request sent for the call, as a string. */
  readonly requestId?: string;
  /** The host of an HTTP server's URL. */
  readonly serverAddress?: string;
  /** The port of an HTTP server's URL (its scheme's default when it names none). */
  readonly serverPort?: number;
  /** The resource a `resources/read` asked for. */
  readonly resourceUri?: string;
  /** The JSON-RPC error code, when the server answered with an error. */
  readonly errorCode?: number;
}

/** The part of an exchange's facts that holds for the whole connection. */
export function connectionFacts(
  server: string,
  kind: TransportKind,
  protocolVersion: string | undefined,
  sessionId: string | undefined,
  url: string | undefined,
): Omit<McpExchange, "method"> {
  let address: { serverAddress: string; serverPort: number } | undefined;
  if (url !== undefined) {
    const parsed = new URL(url);
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
    address = { serverAddress: parsed.hostname.replace(/^\[|\]$/g, ""), serverPort: port };
  }
  return {
    server,
    transport: kind,
    ...(protocolVersion ? { protocolVersion } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(address ?? {}),
  };
}
