import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type HttpServerConfig, isStdioConfig, type McpServerConfig } from "./config.js";

export type TransportKind = "stdio" | "streamable-http" | "sse";

export interface OpenedClient {
  readonly client: Client;
  readonly transport: Transport;
  readonly kind: TransportKind;
  /** The child's pid for stdio servers. */
  readonly pid: number | undefined;
}

export interface OpenOptions {
  readonly makeClient: () => Client;
  readonly timeoutMs: number;
  readonly onStderr: (chunk: string) => void;
}

/**
 * Connects a fresh client to one server. A URL is tried with Streamable HTTP first and, when that fails,
 * with the older HTTP+SSE transport, the fallback the MCP specification describes for old servers.
 */
export async function openClient(config: McpServerConfig, options: OpenOptions): Promise<OpenedClient> {
  if (isStdioConfig(config)) {
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => options.onStderr(chunk.toString("utf8")));
    const client = options.makeClient();
    try {
      await client.connect(transport, { timeout: options.timeoutMs });
    } catch (error) {
      await transport.close().catch(() => {});
      throw error;
    }
    return { client, transport, kind: "stdio", pid: transport.pid ?? undefined };
  }
  const http = config as HttpServerConfig;
  const url = new URL(http.url);
  const requestInit: RequestInit = { headers: http.headers };
  if (http.type !== "sse") {
    const transport = new StreamableHTTPClientTransport(url, { requestInit });
    const client = options.makeClient();
    try {
      await client.connect(transport, { timeout: options.timeoutMs });
      return { client, transport, kind: "streamable-http", pid: undefined };
    } catch (error) {
      await client.close().catch(() => {});
      if (http.type !== undefined && http.type !== "http") throw error;
      try {
        return await openSse(url, requestInit, options);
      } catch (sseError) {
        throw new AggregateError(
          [error, sseError],
          `Streamable HTTP failed (${(error as Error).message}) and SSE failed (${(sseError as Error).message})`,
        );
      }
    }
  }
  return openSse(url, requestInit, options);
}

async function openSse(url: URL, requestInit: RequestInit, options: OpenOptions): Promise<OpenedClient> {
  const transport = new SSEClientTransport(url, { requestInit });
  const client = options.makeClient();
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return { client, transport, kind: "sse", pid: undefined };
}
