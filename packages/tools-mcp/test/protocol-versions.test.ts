// The client speaks 2026-07-28 with servers that do (server/discover, no initialize, no sessions) and
// negotiates down to 2025-11-25 with those that do not, over stdio and Streamable HTTP.
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolFailure } from "@bridle/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type McpCallDetails, McpServers } from "../src/index.js";
import {
  byName,
  callTool,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  MEMORY_SERVER,
  TOY_SERVER,
  textOf,
} from "./helpers.js";

const MODERN_SERVER = fileURLToPath(new URL("./fixtures/modern-server.mjs", import.meta.url));
const mcpOf = (details: unknown) => (details as McpCallDetails | undefined)?.mcp;

/** The 2026 fixture over HTTP on a loopback port; `args` go to the fixture. */
async function startModernHttp(...args: string[]) {
  const child = spawn(process.execPath, [MODERN_SERVER, "--http", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      const found = log.match(/listening on port (\d+)/);
      if (found) resolve(Number(found[1]));
    });
    child.once("exit", (code) => reject(new Error(`the modern server exited with ${code}: ${log}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

let http: Awaited<ReturnType<typeof startModernHttp>>;
let strictHttp: Awaited<ReturnType<typeof startModernHttp>>;
beforeAll(async () => {
  [http, strictHttp] = await Promise.all([startModernHttp(), startModernHttp("--legacy=reject")]);
});
afterAll(async () => {
  await Promise.all([http?.stop(), strictHttp?.stop()]);
});

const modernStdio = (...args: string[]) => ({ command: process.execPath, args: [MODERN_SERVER, ...args] });

describe("2026-07-28 and the versions before it", () => {
  it.each([
    ["stdio", () => modernStdio(), "stdio"],
    ["Streamable HTTP", () => ({ url: http.url }), "streamable-http"],
  ] as const)(
    "a 2026-07-28 server over %s: tools, input_required elicitation, structured output, logs",
    async (_, config, transport) => {
      const asked: string[] = [];
      const logs: unknown[] = [];
      const mcp = new McpServers(
        { mcpServers: { modern: config() } },
        {
          onElicitation: async (request) => {
            asked.push(`${request.server}: ${request.message}`);
            return { action: "accept", content: { name: "Ada" } };
          },
          onLog: (server, message) => logs.push([server, message.data]),
        },
      );
      try {
        const tools = await mcp.tools();
        expect(tools.map((tool) => tool.name).sort()).toEqual([
          "mcp_modern_echo",
          "mcp_modern_greet",
          "mcp_modern_log",
          "mcp_modern_structured",
        ]);
        const echoed = await callTool(byName(tools, "mcp_modern_echo"), { text: "hi" });
        expect(textOf(echoed)).toBe("echo: hi");
        const facts = mcpOf(echoed.details);
        expect(facts).toMatchObject({ method: "tools/call", transport, protocolVersion: "2026-07-28" });
        // No sessions from 2026-07-28 on.
        expect(facts?.sessionId).toBeUndefined();
        expect(facts?.requestId).toMatch(/^\d+$/);
        // The server returns input_required; the client asks the person and retries the call with the answer.
        expect(textOf(await callTool(byName(tools, "mcp_modern_greet"), {}))).toBe("hello, Ada");
        expect(asked).toEqual(["modern: Who is there?"]);
        const structured = await callTool(byName(tools, "mcp_modern_structured"), {});
        expect((structured.details as McpCallDetails).structuredContent).toEqual({ sum: 3 });
        const progress: unknown[] = [];
        const logged = await callTool(
          byName(tools, "mcp_modern_log"),
          {},
          { onProgress: (data) => progress.push(data) },
        );
        expect(textOf(logged)).toBe("logged");
        expect(logs).toEqual([["modern", "a line from the modern server"]]);
        expect(progress).toMatchObject([{ server: "modern", tool: "log", log: { level: "info" } }]);
      } finally {
        await mcp.close();
      }
    },
    60_000,
  );

  it.each([
    [
      "stdio (a v1 SDK server)",
      () => ({ command: process.execPath, args: [TOY_SERVER] }),
      "mcp_old_echo_text",
      { text: "x" },
    ],
    [
      "stdio (server-everything from npm)",
      () => ({ command: process.execPath, args: [EVERYTHING_SERVER] }),
      "mcp_old_echo",
      { message: "x" },
    ],
    [
      "stdio (server-filesystem from npm)",
      () => ({ command: process.execPath, args: [FILESYSTEM_SERVER, tmpdir()] }),
      "mcp_old_list_allowed_directories",
      {},
    ],
    [
      "stdio (server-memory from npm)",
      () => ({
        command: process.execPath,
        args: [MEMORY_SERVER],
        // Never written: the call only reads the (empty) graph.
        env: { MEMORY_FILE_PATH: join(tmpdir(), `bridle-memory-${process.pid}.jsonl`) },
      }),
      "mcp_old_read_graph",
      {},
    ],
  ] as const)(
    "a 2025-11-25 server over %s: negotiated down, as before",
    async (_, config, tool, args) => {
      const mcp = new McpServers({ mcpServers: { old: config() } });
      try {
        const output = await callTool(byName(await mcp.tools(), tool), args);
        expect(mcpOf(output.details)?.protocolVersion).toBe("2025-11-25");
      } finally {
        await mcp.close();
      }
    },
    60_000,
  );

  it("a 2026-07-28 server that refuses 2025 openings still connects (the client speaks its version)", async () => {
    for (const config of [modernStdio("--legacy=reject"), { url: strictHttp.url }]) {
      const mcp = new McpServers({ mcpServers: { strict: config } });
      try {
        const output = await callTool(byName(await mcp.tools(), "mcp_strict_echo"), { text: "ok" });
        expect(mcpOf(output.details)?.protocolVersion).toBe("2026-07-28");
      } finally {
        await mcp.close();
      }
    }
  });

  it("a declined question on 2026-07-28 is the tool's answer, not a broken connection", async () => {
    const mcp = new McpServers({ mcpServers: { modern: modernStdio() } });
    try {
      const greet = byName(await mcp.tools(), "mcp_modern_greet");
      const outcome = await callTool(greet, {}).then(
        (output) => textOf(output),
        (error: unknown) =>
          error instanceof ToolFailure ? `${error.kind}: ${error.message}` : String(error),
      );
      // Nobody to ask: declined at once. This server asks again every round; the call fails after the
      // client's round cap, naming it, and the connection stays up.
      expect(outcome).toMatch(
        /^ToolError: MCP server "modern" kept asking for input while calling greet and never finished/,
      );
      expect(mcp.status()[0]?.state).toBe("ready");
    } finally {
      await mcp.close();
    }
  });
});
