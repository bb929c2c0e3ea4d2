// Every wait is bounded: the handshake (fallback included), each call, close(). A server that dies under a
// call fails that call at once, naming the server, and the next call connects again. Cancellations go only
// to requests still on the wire.
import { ToolFailure } from "@bridle/core";
import { afterEach, describe, expect, it } from "vitest";
import { McpServers } from "../src/index.js";
import { byName, callTool, type HttpServer, startEverythingHttp, textOf, waitFor } from "./helpers.js";
import { type LoopbackServer, startLoopbackServer } from "./loopback-http-server.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function loopback(noHandshake = false): Promise<LoopbackServer> {
  const server = await startLoopbackServer({ noHandshake });
  cleanup.push(() => server.stop());
  return server;
}

function servers(url: string, options: ConstructorParameters<typeof McpServers>[1] = {}): McpServers {
  const mcp = new McpServers({ mcpServers: { remote: { url } } }, options);
  cleanup.push(() => mcp.close());
  return mcp;
}

const cancellations = (server: LoopbackServer) =>
  server.received.filter((message) => message.method === "notifications/cancelled");
const callIds = (server: LoopbackServer, tool: string) =>
  server.received
    .filter((message) => message.method === "tools/call" && message.params?.name === tool)
    .map((message) => message.id);

describe("a server whose Streamable HTTP handshake fails and whose SSE fallback never names an endpoint", () => {
  it("fails discovery at connectTimeoutMs, naming both attempts; close() then returns", async () => {
    const server = await loopback(true);
    // Long enough that a loaded machine still finishes the Streamable HTTP attempt inside it: the SSE
    // fallback, whose handshake never completes, is what runs out.
    const mcp = servers(server.url, { connectTimeoutMs: 5_000 });
    const { tools, failures } = await mcp.discover();
    expect(tools).toEqual([]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ server: "remote", code: "connect_failed" });
    expect(failures[0]?.message).toMatch(
      /Streamable HTTP failed \(.*Error POSTing to endpoint: not here\) and SSE failed \(no completed handshake within 5000 ms \(connectTimeoutMs\)\)/,
    );
    await mcp.close();
    expect(mcp.status()[0]).toMatchObject({ state: "closed" });
  });

  it("does not hold close() up while the fallback waits, whatever connectTimeoutMs says", async () => {
    const server = await loopback(true);
    // Far longer than the test's own timeout: only close() can end this handshake in time.
    const mcp = servers(server.url, { connectTimeoutMs: 600_000 });
    const discovery = mcp.discover();
    // The fallback's SSE stream is open once the 404 came back; give the client a moment to reach it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await mcp.close();
    const { failures } = await discovery;
    expect(failures).toMatchObject([{ server: "remote", code: "connect_failed" }]);
  });
});

describe("a server that drops a call's response stream", () => {
  it("fails that call at once as a ToolError naming the server, and the next call reconnects", async () => {
    const server = await loopback();
    // Far longer than the test's own timeout: the failure must come from the broken stream.
    const mcp = servers(server.url, { callTimeoutMs: 600_000 });
    const tools = await mcp.tools();
    expect(server.initializations()).toBe(1);
    const failure = await callTool(byName(tools, "mcp_remote_die"), {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ToolFailure);
    expect((failure as ToolFailure).kind).toBe("ToolError");
    expect((failure as ToolFailure).message).toMatch(
      /^MCP server "remote" stopped while calling die \(.+\); it will be reconnected on the next call/,
    );
    expect(mcp.status()[0]).toMatchObject({ state: "crashed" });

    expect(textOf(await callTool(byName(tools, "mcp_remote_quick"), {}))).toBe("quick answer");
    expect(server.initializations()).toBe(2);
    expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 1 });
  });
});

describe("cancellation", () => {
  it("close() cancels the requests still in flight, and only those (never initialize)", async () => {
    const server = await loopback();
    const mcp = servers(server.url);
    const tools = await mcp.tools();
    // A run whose signal fires after its call finished: that call is over and must not be cancelled.
    const run = new AbortController();
    expect(textOf(await callTool(byName(tools, "mcp_remote_quick"), {}, { signal: run.signal }))).toBe(
      "quick answer",
    );
    run.abort(new Error("the run ended"));

    const hanging = callTool(byName(tools, "mcp_remote_hang"), {}).catch((error: unknown) => error);
    expect(await waitFor(() => callIds(server, "hang").length === 1)).toBe(true);
    await mcp.close();
    const failure = await hanging;
    expect(failure).toBeInstanceOf(ToolFailure);
    expect((failure as ToolFailure).kind).toBe("Cancelled");

    expect(cancellations(server).map((message) => message.params?.requestId)).toEqual(
      callIds(server, "hang"),
    );
  });

  it("a call aborted by its run is cancelled once; other calls are not", async () => {
    const server = await loopback();
    const mcp = servers(server.url);
    const tools = await mcp.tools();
    await callTool(byName(tools, "mcp_remote_quick"), {});
    const stop = new AbortController();
    const hanging = callTool(byName(tools, "mcp_remote_hang"), {}, { signal: stop.signal });
    expect(await waitFor(() => callIds(server, "hang").length === 1)).toBe(true);
    stop.abort(new Error("user pressed stop"));
    await expect(hanging).rejects.toMatchObject({ kind: "Cancelled" });
    expect(await waitFor(() => cancellations(server).length === 1)).toBe(true);
    await mcp.close();
    expect(cancellations(server).map((message) => message.params?.requestId)).toEqual(
      callIds(server, "hang"),
    );
  });
});

describe("server-everything over Streamable HTTP, killed during a call", () => {
  let http: HttpServer | undefined;
  afterEach(async () => {
    await http?.stop();
  });

  it("fails the call at once, naming the server, and reconnects once it is back", async () => {
    http = await startEverythingHttp("streamableHttp");
    const mcp = servers(http.url, { callTimeoutMs: 600_000 });
    const tools = await mcp.tools();
    const long = byName(tools, "mcp_remote_trigger-long-running-operation");
    const port = Number(new URL(http.url).port);
    const server = http;
    const call = callTool(long, { duration: 600, steps: 600 }, { onProgress: () => void server.stop() });
    await expect(call).rejects.toMatchObject({ kind: "ToolError" });
    await expect(call).rejects.toThrow(
      /^MCP server "remote" stopped while calling trigger-long-running-operation/,
    );

    http = await startEverythingHttp("streamableHttp", port);
    const echo = byName(tools, "mcp_remote_echo");
    expect(textOf(await callTool(echo, { message: "back" }))).toBe("Echo: back");
  });
});
