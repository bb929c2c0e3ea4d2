// A hand-written Streamable HTTP MCP server on a loopback port that records every message it receives and
// misbehaves on request: its handshake can fail over Streamable HTTP while its SSE fallback never names an
// endpoint, a call can hang or drop its response stream mid-answer. JSON-RPC is written out by hand so the
// misbehaviour is exactly what a broken server does, not what an SDK server can be talked into.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface JsonRpcMessage {
  readonly jsonrpc: "2.0";
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
}

export interface LoopbackOptions {
  /** POST answers 404 and GET opens an SSE stream that never names its endpoint. */
  readonly noHandshake?: boolean;
}

export interface LoopbackServer {
  readonly url: string;
  /** Every JSON-RPC message received, in order. */
  readonly received: JsonRpcMessage[];
  /** How many `initialize` requests arrived (a reconnect makes another). */
  initializations(): number;
  stop(): Promise<void>;
}

const TOOLS = [
  { name: "quick", description: "answers at once", inputSchema: { type: "object", properties: {} } },
  { name: "hang", description: "never answers", inputSchema: { type: "object", properties: {} } },
  {
    name: "die",
    description: "starts an event-stream answer, then the connection drops",
    inputSchema: { type: "object", properties: {} },
  },
];

export async function startLoopbackServer(options: LoopbackOptions = {}): Promise<LoopbackServer> {
  const received: JsonRpcMessage[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    void handle(req, res).catch(() => res.destroy());
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (options.noHandshake) {
      if (req.method === "GET") {
        // An SSE stream that stays open and says nothing useful: no `endpoint` event, ever.
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(": waiting\n\n");
        return;
      }
      res.writeHead(404, { "content-type": "text/plain" }).end("not here");
      return;
    }
    if (req.method === "GET") {
      res.writeHead(405).end();
      return;
    }
    if (req.method === "DELETE") {
      res.writeHead(200).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as JsonRpcMessage | JsonRpcMessage[];
    const messages = Array.isArray(body) ? body : [body];
    received.push(...messages);
    const request = messages.find((message) => message.id !== undefined && message.method);
    if (!request) {
      res.writeHead(202).end();
      return;
    }
    const answer = (result: unknown) =>
      res
        .writeHead(200, { "content-type": "application/json", "mcp-session-id": "loopback-session" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: request.id, result }));
    switch (request.method) {
      case "initialize":
        return answer({
          protocolVersion: request.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "loopback", version: "1.0.0" },
        });
      case "tools/list":
        return answer({ tools: TOOLS });
      case "tools/call": {
        const name = request.params?.name;
        if (name === "quick") return answer({ content: [{ type: "text", text: "quick answer" }] });
        if (name === "hang") return; // held open until stop()
        if (name === "die") {
          res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "loopback-session" });
          res.write(": working\n\n", () => setTimeout(() => res.socket?.destroy(), 20));
          return;
        }
        return answer({ content: [{ type: "text", text: `no tool ${String(name)}` }], isError: true });
      }
      default:
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(
            JSON.stringify({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "no method" } }),
          );
    }
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    received,
    initializations: () => received.filter((message) => message.method === "initialize").length,
    async stop() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
