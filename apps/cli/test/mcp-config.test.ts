// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the configs under test write ${…} references literally
// `--mcp FILE` with each config shape users already have, and `--mcp` holding the JSON itself: the servers
// start, their tools are listed, and what the file holds that is not used is said on stderr.
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli-harness.js";

const MCP_PACKAGE = fileURLToPath(new URL("../../../packages/tools-mcp/", import.meta.url));
const TOY = join(MCP_PACKAGE, "test/fixtures/toy-server.mjs");
const EVERYTHING = join(MCP_PACKAGE, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const NODE = process.execPath;

let dir: string;
let cleanup: () => Promise<void>;
let everything: ChildProcess | undefined;
let everythingUrl: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-mcp-"));
  await writeFile(join(dir, ".env.mcp"), "TOY_SETTING=from-env-file\n");
  const port = await freePort();
  everything = spawn(NODE, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let log = "";
    everything?.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      if (/listening on port|running on port/i.test(log)) resolve();
    });
    everything?.once("exit", (code) => reject(new Error(`server-everything exited with ${code}: ${log}`)));
  });
  everythingUrl = `http://127.0.0.1:${port}/mcp`;
});
afterAll(async () => {
  everything?.kill("SIGKILL");
  await cleanup();
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

async function listWith(config: unknown, file = "mcp.json") {
  const path = join(dir, file);
  await writeFile(path, JSON.stringify(config, null, 2));
  return listTools(path);
}

async function listTools(mcp: string) {
  const run = await runCli(["tools", "list", "--json", "--sandbox", "off", "--mcp", mcp, "--cwd", dir], {
    cwd: dir,
    env: { XDG_CONFIG_HOME: join(dir, "config"), XDG_DATA_HOME: join(dir, "data"), OPENAI_API_KEY: "k" },
  });
  const names = run.code === 0 ? (JSON.parse(run.stdout) as { name: string }[]).map((tool) => tool.name) : [];
  return { ...run, names };
}

describe("bridle --mcp", () => {
  it("reads Claude Code's .mcp.json", async () => {
    const run = await listWith(
      { mcpServers: { toy: { type: "stdio", command: NODE, args: [TOY], env: {} } } },
      ".mcp.json",
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.names).toContain("mcp_toy_echo_text");
  });

  it("reads Claude Desktop's config, saying which keys it does not use", async () => {
    const run = await listWith(
      { mcpServers: { toy: { command: NODE, args: [TOY], autoApprove: [] } }, globalShortcut: "Alt+Space" },
      "claude_desktop_config.json",
    );
    expect(run.code).toBe(0);
    expect(run.names).toContain("mcp_toy_echo_text");
    expect(run.stderr).toContain('bridle: warning: the top-level key "globalShortcut" is not used');
    expect(run.stderr).toContain('bridle: warning: MCP server "toy": the key "autoApprove" is not used');
  });

  it("reads Cursor's mcp.json with ${workspaceFolder}, ${userHome} and envFile", async () => {
    const run = await listWith({
      mcpServers: {
        toy: {
          command: NODE,
          args: [TOY, "--tag=${workspaceFolder}", "--home=${userHome}"],
          envFile: "${workspaceFolder}/.env.mcp",
        },
      },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.names).toContain("mcp_toy_echo_text");
  });

  it("reads VS Code's servers, leaving out (and naming) a server that needs a prompt", async () => {
    const run = await listWith({
      inputs: [{ type: "promptString", id: "key", password: true }],
      servers: {
        toy: { type: "stdio", command: NODE, args: [TOY] },
        asks: { type: "http", url: everythingUrl, headers: { Authorization: "${input:key}" } },
      },
    });
    expect(run.code).toBe(0);
    expect(run.names).toContain("mcp_toy_echo_text");
    expect(run.names.some((name) => name.startsWith("mcp_asks_"))).toBe(false);
    expect(run.stderr).toContain('MCP server "asks" uses ${input:key}, which VS Code asks the user for');
  });

  it("reads Gemini CLI's httpUrl as Streamable HTTP", async () => {
    const run = await listWith({ mcpServers: { remote: { httpUrl: everythingUrl, trust: false } } });
    expect(run.code).toBe(0);
    expect(run.names).toContain("mcp_remote_echo");
    expect(run.stderr).toContain('MCP server "remote": the key "trust" is not used');
  });

  it("still takes the JSON itself", async () => {
    const run = await listTools(JSON.stringify({ mcpServers: { toy: { command: NODE, args: [TOY] } } }));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.names).toContain("mcp_toy_echo_text");
  });

  it("names a file that is not there", async () => {
    const run = await listTools(join(dir, "missing.json"));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/cannot read the MCP config .*missing\.json/);
  });
});
