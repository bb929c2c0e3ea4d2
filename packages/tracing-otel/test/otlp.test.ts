import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { Harness } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ATTR, createTracing } from "../src/index.js";
import { echo, failing, mcpRead } from "./fixtures.js";
import { type DecodedSpan, decodeTraceRequest } from "./otlp-decode.js";

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly spans: DecodedSpan[];
}

/** A loopback OTLP/HTTP receiver that decodes each protobuf trace request it gets. */
async function receiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      try {
        const raw = Buffer.concat(chunks);
        const body = new Uint8Array(request.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw);
        received.push({ path: request.url ?? "", headers: request.headers, spans: decodeTraceRequest(body) });
        response.writeHead(200, { "content-type": "application/x-protobuf" });
        response.end();
      } catch (error) {
        response.writeHead(400);
        response.end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1/traces`, received, server };
}

describe("OTLP/HTTP export", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    servers.length = 0;
  });

  it("sends the run's spans as protobuf to a collector, decodable with their tree and attributes", async () => {
    const { url, received, server } = await receiver();
    servers.push(server);
    const tracing = createTracing({
      serviceName: "agent-under-test",
      otlp: { url, headers: { authorization: "Bearer test-token" }, compression: "gzip" },
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "mcp_files_read", arguments: { path: "a.txt" }, id: "m1" },
          { name: "explode", arguments: {}, id: "x1" },
        ],
        usage: { inputTokens: 321, outputTokens: 12, cacheReadTokens: 300, cacheWriteTokens: 21 },
      },
      { text: "done", usage: { inputTokens: 400, outputTokens: 3 } },
    ]);
    const harness = new Harness({ model, tools: [echo, mcpRead, failing], agentName: "exporter-test" });
    const result = await harness.run({ prompt: "go", sink: tracing.tracer });
    expect(result.stopReason).toBe("completed");
    await tracing.shutdown();

    expect(received.length).toBeGreaterThanOrEqual(1);
    expect(received[0]?.path).toBe("/v1/traces");
    expect(received[0]?.headers["content-type"]).toBe("application/x-protobuf");
    expect(received[0]?.headers.authorization).toBe("Bearer test-token");
    expect(received[0]?.headers["content-encoding"]).toBe("gzip");
    const spans = received.flatMap((request) => request.spans);
    expect(spans).toHaveLength(5);
    const agent = spans.find((span) => span.name === "invoke_agent exporter-test");
    expect(agent?.parentSpanId).toBe("");
    expect(agent?.kind).toBe(1);
    expect(agent?.resource["service.name"]).toBe("agent-under-test");
    expect(agent?.scope).toBe("@bridle/tracing-otel");
    expect(agent?.attributes[ATTR.runId]).toBe(result.runId);
    expect(agent?.attributes[ATTR.inputTokens]).toBe(721);
    for (const span of spans) {
      expect(span.traceId).toBe(agent?.traceId);
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.endUnixNano).toBeGreaterThanOrEqual(span.startUnixNano);
      if (span !== agent) expect(span.parentSpanId).toBe(agent?.spanId);
    }
    const chat = spans.find(
      (span) => span.name === "chat scripted-model" && span.attributes[ATTR.request] === 1,
    );
    expect(chat?.kind).toBe(3);
    expect(chat?.attributes).toMatchObject({
      [ATTR.operationName]: "chat",
      [ATTR.inputTokens]: 321,
      [ATTR.outputTokens]: 12,
      [ATTR.cacheReadTokens]: 300,
      [ATTR.cacheCreationTokens]: 21,
      [ATTR.finishReasons]: ["tool_call"],
    });
    const mcp = spans.find((span) => span.name === "execute_tool mcp_files_read");
    expect(mcp?.attributes).toMatchObject({
      [ATTR.toolCallId]: "m1",
      [ATTR.mcpMethodName]: "tools/call",
      [ATTR.mcpServer]: "files",
    });
    const failed = spans.find((span) => span.name === "execute_tool explode");
    expect(failed?.status).toEqual({ code: 2, message: "ToolError" });
    expect(failed?.attributes[ATTR.errorType]).toBe("ToolError");
  });

  it("finds the collector through OTEL_EXPORTER_OTLP_ENDPOINT with otlp: true", async () => {
    const { url, received, server } = await receiver();
    servers.push(server);
    vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", url.replace(/\/v1\/traces$/, ""));
    try {
      const tracing = createTracing({ otlp: true });
      await new Harness({ model: new ScriptedModel([{ text: "hi" }]) }).run({
        prompt: "x",
        sink: tracing.tracer,
      });
      await tracing.shutdown();
    } finally {
      vi.unstubAllEnvs();
    }
    expect(received[0]?.path).toBe("/v1/traces");
    expect(received.flatMap((request) => request.spans.map((span) => span.name)).sort()).toEqual([
      "chat scripted-model",
      "invoke_agent",
    ]);
  });

  it("keeps the run going when no collector answers", async () => {
    const { url, server } = await receiver();
    await new Promise((resolve) => server.close(resolve));
    const tracing = createTracing({ otlp: { url, timeoutMillis: 2000 }, batch: false });
    const result = await new Harness({ model: new ScriptedModel([{ text: "fine" }]) }).run({
      prompt: "hi",
      sink: tracing.tracer,
    });
    expect(result.stopReason).toBe("completed");
    await tracing.shutdown();
  });

  it("as an observer beside the run's record, says once that spans are lost when no collector answers", async () => {
    const { url, server } = await receiver();
    await new Promise((resolve) => server.close(resolve));
    const failures: { exporter: string; error: Error }[] = [];
    const tracing = createTracing({
      otlp: { url, timeoutMillis: 2000 },
      batch: false,
      onExportFailure: (failure) => failures.push(failure),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "a" } }] },
      { text: "fine" },
    ]);
    const result = await new Harness({ model, tools: [echo] }).run({
      prompt: "hi",
      observers: [tracing.tracer],
    });
    expect(result.stopReason).toBe("completed");
    await tracing.shutdown();
    // Every span failed to export (the agent, two chats, a tool): one report.
    expect(failures).toHaveLength(1);
    expect(failures[0]?.exporter).toBe("OTLPTraceExporter");
  });
});
