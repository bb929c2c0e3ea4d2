import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type HttpServerConfig, isStdioConfig, type McpServerConfig } from "./config.js";
import { descendantPids, stopProcesses } from "./processes.js";

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
  /** Abandons the handshake (the connection is being closed). */
  readonly signal: AbortSignal;
  readonly onStderr: (chunk: string) => void;
}

/**
 * Connects a fresh client to one server. A URL is tried with Streamable HTTP first and, when that fails,
 * with the older HTTP+SSE transport, the fallback the MCP specification describes for old servers.
 */
export async function openClient(config: McpServerConfig, options: OpenOptions): Promise<OpenedClient> {
  if (isStdioConfig(config)) {
    const transport = new PidRecordingStdioTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => options.onStderr(chunk.toString("utf8")));
    const client = options.makeClient();
    try {
      await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal });
    } catch (error) {
      // The client closes the transport itself on a failed handshake, without waiting for the process
      // to exit: stop it (and what it started) here, so a failed start leaves nothing running.
      const pid = transport.startedPid;
      const strays = pid === undefined ? [] : [pid, ...(await descendantPids(pid))];
      await transport.close().catch(() => {});
      await stopProcesses(strays, 2_000);
      throw error;
    }
    return { client, transport, kind: "stdio", pid: transport.startedPid };
  }
  const http = config as HttpServerConfig;
  const url = new URL(http.url);
  const requestInit: RequestInit = { headers: http.headers };
  if (http.type !== "sse") {
    const transport = new StreamableHTTPClientTransport(url, { requestInit });
    const client = options.makeClient();
    try {
      await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal });
      return { client, transport, kind: "streamable-http", pid: undefined };
    } catch (error) {
      await client.close().catch(() => {});
      const status = error instanceof StreamableHTTPError ? error.code : undefined;
      if (status === 401 || status === 403) {
        // Credentials, not an old server: SSE would be refused the same way.
        throw new Error(`the server refused the request (HTTP ${status}); check the configured headers`, {
          cause: error,
        });
      }
      if (options.signal.aborted || (http.type !== undefined && http.type !== "http")) throw error;
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

/** Remembers the child's pid, which the SDK's transport forgets as soon as it is closed. */
class PidRecordingStdioTransport extends StdioClientTransport {
  startedPid: number | undefined;

  override async start(): Promise<void> {
    await super.start();
    this.startedPid = this.pid ?? undefined;
  }
}

async function openSse(url: URL, requestInit: RequestInit, options: OpenOptions): Promise<OpenedClient> {
  const transport = new SSEClientTransport(url, { requestInit });
  const client = options.makeClient();
  try {
    await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal });
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return { client, transport, kind: "sse", pid: undefined };
}
