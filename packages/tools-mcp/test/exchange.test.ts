// Each call's result (and failure) carries the facts of its MCP request, for tracing: transport, protocol
// version, the JSON-RPC id it went out with, and over Streamable HTTP the session.
import { type AnyTool, ToolFailure } from "@bridle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpCallDetails, McpServers } from "../src/index.js";
import {
  byName,
  callTool,
  EVERYTHING_SERVER,
  type HttpServer,
  startEverythingHttp,
  TOY_SERVER,
} from "./helpers.js";

function mcpOf(details: unknown) {
  return (details as McpCallDetails).mcp;
}

describe("the facts of each MCP request", () => {
  let http: HttpServer;
  let mcp: McpServers;
  let tools: AnyTool[];
  beforeAll(async () => {
    http = await startEverythingHttp("streamableHttp");
    mcp = new McpServers({
      mcpServers: {
        local: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] },
        remote: { url: http.url, type: "streamable-http" },
      },
    });
    tools = await mcp.tools();
  });
  afterAll(async () => {
    await mcp.close();
    await http.stop();
  });

  it("over stdio: the pipe, the negotiated version, and a new request id per call", async () => {
    const first = await callTool(byName(tools, "mcp_local_echo"), { message: "one" });
    const second = await callTool(byName(tools, "mcp_local_echo"), { message: "two" });
    const facts = mcpOf(first.details);
    expect(facts).toMatchObject({ method: "tools/call", server: "local", tool: "echo", transport: "stdio" });
    expect(facts?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(facts?.sessionId).toBeUndefined();
    expect(facts?.requestId).toMatch(/^\d+$/);
    expect(mcpOf(second.details)?.requestId).not.toBe(facts?.requestId);
  });

  it("over Streamable HTTP: the session id the server gave, and its address", async () => {
    const output = await callTool(byName(tools, "mcp_remote_get-sum"), { a: 2, b: 3 });
    const facts = mcpOf(output.details);
    const port = Number(new URL(http.url).port);
    expect(facts).toMatchObject({
      method: "tools/call",
      server: "remote",
      tool: "get-sum",
      transport: "streamable-http",
      serverAddress: "127.0.0.1",
      serverPort: port,
    });
    expect(facts?.sessionId).toMatch(/\S{8,}/);
    expect(facts?.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(facts?.requestId).toMatch(/^\d+$/);
  });

  it("a resource read names its URI, and a refused one keeps the facts with the JSON-RPC error code", async () => {
    const read = byName(tools, "mcp_read_resource");
    const output = await callTool(read, { server: "remote", uri: "demo://resource/dynamic/text/7" });
    expect(mcpOf(output.details)).toMatchObject({
      method: "resources/read",
      server: "remote",
      transport: "streamable-http",
      resourceUri: "demo://resource/dynamic/text/7",
    });
    expect(mcpOf(output.details)?.requestId).toMatch(/^\d+$/);
    const failure = await callTool(read, { server: "local", uri: "demo://nope" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((failure as ToolFailure).kind).toBe("NotFound");
    expect(((failure as ToolFailure).details as McpCallDetails).mcp).toMatchObject({
      method: "resources/read",
      resourceUri: "demo://nope",
      errorCode: -32602,
    });
  });

  it("a failed call carries them too, with the JSON-RPC error code", async () => {
    await using toy = new McpServers(
      { mcpServers: { toy: { command: process.execPath, args: [TOY_SERVER] } } },
      { callTimeoutMs: 300 },
    );
    const slow = byName(await toy.tools(), "mcp_toy_slow");
    const failure = await callTool(slow, { steps: 50, stepMs: 200, quiet: true }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ToolFailure);
    expect((failure as ToolFailure).kind).toBe("Timeout");
    const details = (failure as ToolFailure).details as McpCallDetails;
    expect(details.tool).toBe("slow");
    expect(details.mcp).toMatchObject({ method: "tools/call", transport: "stdio", errorCode: -32001 });
    expect(details.mcp?.requestId).toMatch(/^\d+$/);
  });
});
