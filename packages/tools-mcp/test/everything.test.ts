import { randomUUID } from "node:crypto";
import { type AnyTool, ToolFailure } from "@bridle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpServers } from "../src/index.js";
import {
  byName,
  callTool,
  EVERYTHING_SERVER,
  type HttpServer,
  processesMentioning,
  running,
  startEverythingHttp,
  textOf,
  waitFor,
} from "./helpers.js";

// @modelcontextprotocol/server-everything, the protocol's reference server, over each transport.

describe("server-everything over stdio", () => {
  const tag = randomUUID();
  let mcp: McpServers;
  let tools: AnyTool[];
  beforeAll(async () => {
    mcp = new McpServers({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio", `--tag=${tag}`] },
      },
    });
    tools = await mcp.tools();
  });
  afterAll(() => mcp.close());

  it("discovers its tools with their annotations and the resource tools", () => {
    const names = tools.map((tool) => tool.name);
    for (const name of ["mcp_everything_echo", "mcp_everything_get-sum", "mcp_everything_get-tiny-image"]) {
      expect(names).toContain(name);
    }
    expect(names).toContain("mcp_list_resources");
    expect(names).toContain("mcp_read_resource");
    expect(byName(tools, "mcp_everything_gzip-file-as-resource").annotations).toEqual({
      read_only: false,
      destructive: false,
      idempotent: true,
      open_world: true,
    });
  });

  it("calls tools: text, numbers, images and structured content", async () => {
    expect(textOf(await callTool(byName(tools, "mcp_everything_echo"), { message: "hello" }))).toBe(
      "Echo: hello",
    );
    expect(textOf(await callTool(byName(tools, "mcp_everything_get-sum"), { a: 2, b: 40 }))).toContain("42");

    const image = await callTool(byName(tools, "mcp_everything_get-tiny-image"), {});
    expect(Array.isArray(image.content)).toBe(true);
    const parts = image.content as readonly { type: string; mediaType?: string }[];
    expect(parts.map((part) => part.type)).toEqual(["text", "image", "text"]);
    expect(parts[1]?.mediaType).toBe("image/png");

    const weather = await callTool(byName(tools, "mcp_everything_get-structured-content"), {
      location: "Chicago",
    });
    expect(weather.details).toMatchObject({ structuredContent: expect.any(Object) });
  });

  it("surfaces errors: arguments refused before the server, and the server's own failures", async () => {
    await expect(callTool(byName(tools, "mcp_everything_get-sum"), { a: "two", b: 1 })).rejects.toThrow(/a:/);
    const failed = await callTool(byName(tools, "mcp_everything_get-resource-reference"), { resourceId: -3 });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain("Invalid resourceId");
  });

  it("reports progress of a long-running operation", async () => {
    const progress: unknown[] = [];
    const output = await callTool(
      byName(tools, "mcp_everything_trigger-long-running-operation"),
      { duration: 1, steps: 4 },
      { onProgress: (data) => progress.push(data) },
    );
    expect(textOf(output)).toContain("Long running operation completed");
    expect(progress.length).toBeGreaterThanOrEqual(3);
  });

  it("lists and reads resources through tools", async () => {
    const listed = await callTool(byName(tools, "mcp_list_resources"), {});
    expect(textOf(listed)).toContain("demo://resource/static/document/architecture.md");
    expect(textOf(listed)).toContain("template demo://resource/dynamic/text/{resourceId}");
    const read = await callTool(byName(tools, "mcp_read_resource"), {
      server: "everything",
      uri: "demo://resource/dynamic/text/7",
    });
    expect(textOf(read)).toContain("demo://resource/dynamic/text/7");
    const missing = callTool(byName(tools, "mcp_read_resource"), {
      server: "everything",
      uri: "demo://nope",
    });
    await expect(missing).rejects.toBeInstanceOf(ToolFailure);
    await expect(missing).rejects.toMatchObject({ kind: "NotFound" });
  });

  it("recovers from a killed server on the next call, and leaves no process after close", async () => {
    const pid = mcp.status()[0]?.pid as number;
    expect(running(pid)).toBe(true);
    process.kill(pid, "SIGKILL");
    expect(await waitFor(() => mcp.status()[0]?.state === "crashed")).toBe(true);
    expect(textOf(await callTool(byName(tools, "mcp_everything_echo"), { message: "back" }))).toBe(
      "Echo: back",
    );
    const restarted = mcp.status()[0];
    expect(restarted).toMatchObject({ state: "ready", restarts: 1 });
    expect(restarted?.pid).not.toBe(pid);

    await mcp.close();
    expect(processesMentioning(tag)).toEqual([]);
  });
});

describe("server-everything over HTTP", () => {
  let http: HttpServer | undefined;
  afterAll(async () => {
    await http?.stop();
  });

  it("speaks Streamable HTTP, and reconnects to a server that was killed and started again", async () => {
    http = await startEverythingHttp("streamableHttp");
    const mcp = new McpServers({ mcpServers: { remote: { url: http.url, headers: { "x-test": "1" } } } });
    try {
      const tools = await mcp.tools();
      expect(mcp.status()[0]).toMatchObject({ state: "ready", transport: "streamable-http" });
      const echo = byName(tools, "mcp_remote_echo");
      expect(textOf(await callTool(echo, { message: "over http" }))).toBe("Echo: over http");

      const port = new URL(http.url).port;
      await http.stop();
      const lost = callTool(echo, { message: "nobody there" });
      await expect(lost).rejects.toMatchObject({ kind: "ToolError" });
      await expect(lost).rejects.toThrow(/reconnected on the next call/);

      http = await startEverythingHttp("streamableHttp", Number(port));
      expect(textOf(await callTool(echo, { message: "again" }))).toBe("Echo: again");
    } finally {
      await mcp.close();
    }
  });

  it("falls back to the older SSE transport when Streamable HTTP is refused", async () => {
    const sse = await startEverythingHttp("sse");
    const mcp = new McpServers({ mcpServers: { old: { url: sse.url } } });
    try {
      const tools = await mcp.tools();
      expect(mcp.status()[0]).toMatchObject({ transport: "sse" });
      expect(textOf(await callTool(byName(tools, "mcp_old_get-sum"), { a: 1, b: 2 }))).toContain("3");
    } finally {
      await mcp.close();
      await sse.stop();
    }
  });
});
