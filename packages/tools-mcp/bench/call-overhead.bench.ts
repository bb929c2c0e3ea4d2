import { type AnyTool, parseToolArguments, type ToolCallEnv, Workspace } from "@bridle/core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, test } from "vitest";
import { McpServers } from "../src/index.js";
import { EVERYTHING_SERVER, startEverythingHttp } from "../test/helpers.js";

// What a Bridle MCP tool adds to a call: argument validation against the converted schema, the live
// tool-list check, the timeout/progress/abort options, and result shaping. Each pair calls the same
// server-everything `echo` over the same transport, once through the SDK client directly and once through
// the Bridle tool, so the ratio in one run is the overhead.

const workspace = new Workspace(process.cwd());
// The harness gives every call its own signal; reusing one would pile the SDK's abort listeners onto it.
function callContext(): ToolCallEnv {
  return {
    signal: new AbortController().signal,
    workspace,
    runId: "bench",
    toolCallId: "bench",
    progress: () => {},
  };
}
const rawArguments = JSON.stringify({ message: "hello from the benchmark" });

const http = await startEverythingHttp("streamableHttp");

async function sdkClient(kind: "stdio" | "http"): Promise<Client> {
  // Negotiating as the bridge does, so the pair differs only in what the bridge adds.
  const client = new Client({ name: "bench", version: "0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    kind === "stdio"
      ? new StdioClientTransport({
          command: process.execPath,
          args: [EVERYTHING_SERVER, "stdio"],
          stderr: "pipe",
        })
      : new StreamableHTTPClientTransport(new URL(http.url)),
  );
  return client;
}

const stdioClient = await sdkClient("stdio");
const httpClient = await sdkClient("http");
const mcp = new McpServers({
  mcpServers: {
    local: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] },
    remote: { url: http.url },
  },
});
const tools = await mcp.tools();
function discovered(name: string): AnyTool {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`${name} was not discovered`);
  return tool;
}
const localEcho = discovered("mcp_local_echo");
const remoteEcho = discovered("mcp_remote_echo");

async function throughBridle(tool: AnyTool): Promise<void> {
  const parsed = parseToolArguments(tool.inputSchema, rawArguments);
  if (!parsed.ok) throw new Error(parsed.problems.join("; "));
  const output = await tool.execute(parsed.value, callContext());
  if (output.isError) throw new Error("echo failed");
}

async function throughSdk(client: Client): Promise<void> {
  const result = await client.callTool({ name: "echo", arguments: JSON.parse(rawArguments) });
  if (result.isError) throw new Error("echo failed");
}

// The machine these run on is shared, so load drifts between one bench's window and the next. These pairs
// alternate the two sides call by call and compare medians, which drift cannot skew.
const interleaved = {
  stdio: { sdk: [] as number[], bridle: [] as number[] },
  http: { sdk: [] as number[], bridle: [] as number[] },
};

async function alternate(kind: "stdio" | "http"): Promise<void> {
  const client = kind === "stdio" ? stdioClient : httpClient;
  const tool = kind === "stdio" ? localEcho : remoteEcho;
  let started = performance.now();
  await throughSdk(client);
  interleaved[kind].sdk.push(performance.now() - started);
  started = performance.now();
  await throughBridle(tool);
  interleaved[kind].bridle.push(performance.now() - started);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

afterAll(async () => {
  for (const [kind, sides] of Object.entries(interleaved)) {
    if (sides.sdk.length === 0) continue;
    const sdk = median(sides.sdk) * 1000;
    const bridle = median(sides.bridle) * 1000;
    console.log(
      `interleaved ${kind}: ${sides.sdk.length} pairs, median SDK ${sdk.toFixed(0)} µs, Bridle ${bridle.toFixed(0)} µs, ratio ${(bridle / sdk).toFixed(2)}, overhead ${(bridle - sdk).toFixed(0)} µs`,
    );
  }
  await Promise.all([stdioClient.close(), httpClient.close(), mcp.close()]);
  await http.stop();
});

test("one echo call over stdio", async ({ bench }) => {
  await bench("SDK client.callTool", () => throughSdk(stdioClient)).run({ time: 2_000, warmupTime: 300 });
  await bench("Bridle MCP tool", () => throughBridle(localEcho)).run({ time: 2_000, warmupTime: 300 });
});

test("one echo call over Streamable HTTP", async ({ bench }) => {
  await bench("SDK client.callTool", () => throughSdk(httpClient)).run({ time: 2_000, warmupTime: 300 });
  await bench("Bridle MCP tool", () => throughBridle(remoteEcho)).run({ time: 2_000, warmupTime: 300 });
});

test("alternating SDK and Bridle calls (medians printed at the end)", async ({ bench }) => {
  await bench("stdio pair", () => alternate("stdio")).run({ time: 2_000, warmupTime: 300 });
  await bench("Streamable HTTP pair", () => alternate("http")).run({ time: 2_000, warmupTime: 300 });
});
