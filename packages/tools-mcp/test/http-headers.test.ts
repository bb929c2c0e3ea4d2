import { createServer, type Server as HttpServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpServers } from "../src/index.js";
import { byName, callTool, textOf } from "./helpers.js";

// A loopback Streamable HTTP server (stateless) that wants a bearer token, as hosted MCP servers do.

let http: HttpServer;
let url: string;
const seen: string[] = [];

function mcpServer(): Server {
  const server = new Server({ name: "guarded", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: "whoami", description: "The caller", inputSchema: { type: "object", properties: {} } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({
    content: [{ type: "text", text: "token holder" }],
  }));
  return server;
}

beforeAll(async () => {
  http = createServer(async (req, res) => {
    seen.push(String(req.headers.authorization));
    if (req.headers.authorization !== "Bearer right") {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
      return;
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => void transport.close());
    await mcpServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const address = http.address();
  url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/mcp`;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

describe("a Streamable HTTP server behind a token", () => {
  it("sends the configured headers on every request", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own reference, filled in from `env`
    const authorization = "Bearer ${TOKEN}";
    const mcp = new McpServers(
      {
        mcpServers: { guarded: { url, type: "streamable-http", headers: { Authorization: authorization } } },
      },
      { env: { TOKEN: "right" } },
    );
    try {
      const tools = await mcp.tools();
      expect(textOf(await callTool(byName(tools, "mcp_guarded_whoami"), {}))).toBe("token holder");
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set(["Bearer right"]));
    } finally {
      await mcp.close();
    }
  });

  it("reports a refused token as a server that could not be connected, with the status", async () => {
    const mcp = new McpServers({
      mcpServers: { guarded: { url, headers: { Authorization: "Bearer wrong" } } },
    });
    try {
      const { failures } = await mcp.discover();
      expect(failures).toMatchObject([{ server: "guarded", code: "connect_failed" }]);
      expect(failures[0]?.message).toMatch(/refused the request \(HTTP 401\); check the configured headers/);
    } finally {
      await mcp.close();
    }
  });
});
