// MCP tool calls through a real run against the reference server (server-everything, over stdio and over
// Streamable HTTP): each call's span carries the OpenTelemetry MCP attributes, taken from the facts the MCP
// bridge puts in the result's details.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { Harness } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { McpServers } from "@bridle/tools-mcp";
import { SpanStatusCode } from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTR, type RunTracer } from "../src/index.js";
import { memoryTracing, one } from "./fixtures.js";

const EVERYTHING = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** server-everything's Streamable HTTP mode on a loopback port; resolves once it listens. */
async function startHttp(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let log = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      if (/listening on port|running on port/i.test(log)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited with ${code}: ${log}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** A run whose events the tracer observes as the stream yields them. */
async function traced(harness: Harness, prompt: string, tracer: RunTracer) {
  const stream = harness.stream({ prompt });
  for await (const event of stream) tracer.observe(event);
  return stream.result;
}

describe("MCP spans from a real server", () => {
  let http: { url: string; stop: () => Promise<void> };
  let mcp: McpServers;
  beforeAll(async () => {
    http = await startHttp();
    mcp = new McpServers(
      {
        mcpServers: {
          local: { command: process.execPath, args: [EVERYTHING, "stdio"] },
          "remote.api": { url: http.url, type: "streamable-http" },
        },
      },
      { callTimeoutMs: 1_000 },
    );
  });
  afterAll(async () => {
    await mcp.close();
    await http.stop();
  });

  it("carry session, protocol version, request id, transport and the server's own tool name", async () => {
    const tools = await mcp.tools();
    const { tracer, spans } = memoryTracing({ mcpServers: mcp.serverNames });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "mcp_local_echo", arguments: { message: "hi" }, id: "c1" },
          // A server name with a dot becomes "_" in the tool name; the span still names "remote.api".
          { name: "mcp_remote_api_get-sum", arguments: { a: 1, b: 2 }, id: "c2" },
          {
            name: "mcp_read_resource",
            arguments: { server: "local", uri: "demo://resource/dynamic/text/7" },
            id: "c3",
          },
        ],
      },
      { text: "done" },
    ]);
    const result = await traced(new Harness({ model, tools }), "use mcp", tracer);
    expect(result.stopReason).toBe("completed");
    const all = spans();

    const local = one(all, "execute_tool mcp_local_echo");
    expect(local.attributes).toMatchObject({
      [ATTR.toolName]: "mcp_local_echo",
      [ATTR.toolType]: "extension",
      [ATTR.mcpMethodName]: "tools/call",
      [ATTR.mcpServer]: "local",
      [ATTR.mcpTool]: "echo",
      [ATTR.networkTransport]: "pipe",
    });
    expect(local.attributes[ATTR.mcpProtocolVersion]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(local.attributes[ATTR.jsonrpcRequestId]).toMatch(/^\d+$/);
    expect(local.attributes[ATTR.mcpSessionId]).toBeUndefined();

    const remote = one(all, "execute_tool mcp_remote_api_get-sum");
    expect(remote.attributes).toMatchObject({
      [ATTR.toolName]: "mcp_remote_api_get-sum",
      [ATTR.mcpMethodName]: "tools/call",
      [ATTR.mcpServer]: "remote.api",
      [ATTR.mcpTool]: "get-sum",
      [ATTR.networkTransport]: "tcp",
      [ATTR.networkProtocolName]: "http",
      [ATTR.serverAddress]: "127.0.0.1",
      [ATTR.serverPort]: Number(new URL(http.url).port),
    });
    expect(remote.attributes[ATTR.mcpSessionId]).toMatch(/\S{8,}/);
    expect(remote.attributes[ATTR.mcpProtocolVersion]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(remote.attributes[ATTR.jsonrpcRequestId]).toMatch(/^\d+$/);

    const read = one(all, "execute_tool mcp_read_resource");
    expect(read.attributes).toMatchObject({
      [ATTR.mcpMethodName]: "resources/read",
      [ATTR.mcpServer]: "local",
      [ATTR.mcpResourceUri]: "demo://resource/dynamic/text/7",
      [ATTR.networkTransport]: "pipe",
    });
    expect(read.attributes[ATTR.mcpTool]).toBeUndefined();
  });

  it("a call that fails on the server keeps them, with the JSON-RPC error code", async () => {
    const tools = await mcp.tools();
    const { tracer, spans } = memoryTracing();
    // trigger-long-running-operation sends progress only every `duration / steps` seconds: with one step of
    // 5 s and a 1 s call timeout the call times out (and is cancelled) without a response.
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: "mcp_local_trigger-long-running-operation",
            arguments: { duration: 5, steps: 1 },
            id: "slow",
          },
        ],
      },
      { text: "gave up" },
    ]);
    const result = await traced(new Harness({ model, tools }), "wait", tracer);
    expect(result.stopReason).toBe("completed");
    const span = one(spans(), "execute_tool mcp_local_trigger-long-running-operation");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      [ATTR.errorType]: "Timeout",
      [ATTR.mcpTool]: "trigger-long-running-operation",
      [ATTR.rpcResponseStatusCode]: "-32001",
      [ATTR.networkTransport]: "pipe",
    });
    expect(span.attributes[ATTR.jsonrpcRequestId]).toMatch(/^\d+$/);
  });
});
