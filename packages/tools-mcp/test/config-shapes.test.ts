// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the configs under test write ${…} references literally
// The config files users already have, read unchanged; whatever is not used is reported, not dropped.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpServers, type McpWarning, parseMcpConfig } from "../src/index.js";
import { byName, callTool, TOY_SERVER, textOf } from "./helpers.js";

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "bridle-mcp-shapes-"));
  await writeFile(
    join(workspace, ".env.mcp"),
    '# tokens\nexport API_TOKEN="from the env file"\nREGION=eu # trailing comment\nSHARED=file\n',
  );
});
afterAll(() => rm(workspace, { recursive: true, force: true }));

function parse(config: unknown) {
  const ignored: Array<[string, string]> = [];
  const servers = parseMcpConfig(config as never, {
    env: { HOME_TOKEN: "t" },
    workspaceFolder: workspace,
    userHome: "/home/someone",
    onIgnored: (server, message) => ignored.push([server, message]),
  });
  return { servers, ignored };
}

describe("config shapes", () => {
  it("Claude Code's .mcp.json: typed stdio, http and sse entries", () => {
    const { servers, ignored } = parse({
      mcpServers: {
        local: { type: "stdio", command: "server", args: ["--x"], env: { A: "${HOME_TOKEN}" } },
        remote: { type: "http", url: "https://example.test/mcp", headers: { Authorization: "Bearer x" } },
        old: { type: "sse", url: "https://example.test/sse" },
      },
    });
    expect(servers.local).toMatchObject({ command: "server", args: ["--x"], env: { A: "t" } });
    expect(servers.remote).toMatchObject({ type: "http", url: "https://example.test/mcp" });
    expect(servers.old).toMatchObject({ type: "sse" });
    expect(ignored).toEqual([]);
  });

  it("Claude Desktop's and Cursor's mcpServers: ${workspaceFolder}, ${userHome}, envFile; extra keys reported", () => {
    const { servers, ignored } = parse({
      mcpServers: {
        files: {
          command: "npx",
          args: ["-y", "server-filesystem", "${workspaceFolder}", "${userHome}/notes"],
          envFile: "${workspaceFolder}/.env.mcp",
          env: { SHARED: "env wins" },
          autoApprove: ["read_file"],
        },
      },
      globalShortcut: "Ctrl+Space",
    });
    expect(servers.files).toMatchObject({
      args: ["-y", "server-filesystem", workspace, "/home/someone/notes"],
      env: { API_TOKEN: "from the env file", REGION: "eu", SHARED: "env wins" },
    });
    expect(ignored).toEqual([
      ["(config)", 'the top-level key "globalShortcut" is not used'],
      ["files", 'MCP server "files": the key "autoApprove" is not used'],
    ]);
  });

  it("a relative envFile is found in the workspace; a missing one is an error naming it", () => {
    expect(parse({ mcpServers: { a: { command: "s", envFile: ".env.mcp" } } }).servers.a).toMatchObject({
      env: { REGION: "eu" },
    });
    expect(() => parse({ mcpServers: { a: { command: "s", envFile: "nope.env" } } })).toThrow(
      /MCP server "a" names the envFile .*nope\.env, which cannot be read \(ENOENT\)/,
    );
  });

  it("VS Code's servers, with its inputs: a server needing a prompt is left out and reported", () => {
    const { servers, ignored } = parse({
      inputs: [{ type: "promptString", id: "token", description: "API token", password: true }],
      servers: {
        github: {
          type: "http",
          url: "https://api.example.test/mcp",
          headers: { Authorization: "${input:token}" },
        },
        local: { type: "stdio", command: "server", args: ["${workspaceFolder}"], dev: { watch: "src/**" } },
      },
    });
    expect(Object.keys(servers)).toEqual(["local"]);
    expect(servers.local).toMatchObject({ args: [workspace] });
    expect(ignored).toEqual([
      [
        "github",
        'MCP server "github" uses ${input:token}, which VS Code asks the user for; it was left out (write the value, or ${env:NAME}, instead)',
      ],
      ["local", 'MCP server "local": the key "dev" is not used'],
    ]);
  });

  it("Gemini CLI's httpUrl (Streamable HTTP) and url; its tool filters kept as the server's filter", () => {
    const { servers, ignored } = parse({
      mcpServers: {
        streamable: { httpUrl: "https://example.test/mcp", timeout: 5000, trust: true },
        sse: { url: "https://example.test/sse", includeTools: ["a"] },
      },
    });
    expect(servers.streamable).toMatchObject({
      type: "http",
      url: "https://example.test/mcp",
      timeout: 5000,
    });
    expect(servers.sse).toMatchObject({ url: "https://example.test/sse", toolFilter: { include: ["a"] } });
    expect(ignored.map(([, message]) => message)).toEqual([
      'MCP server "streamable": the key "trust" is not used',
    ]);
  });

  it("Codex's mcp_servers (config.toml, parsed): headers from variables, tool timeout, unused keys reported", () => {
    const { servers, ignored } = parse({
      mcp_servers: {
        remote: {
          url: "https://example.test/mcp",
          bearer_token_env_var: "HOME_TOKEN",
          http_headers: { "X-Team": "core" },
          env_http_headers: { "X-Token": "HOME_TOKEN" },
          tool_timeout_sec: 2.5,
          startup_timeout_sec: 20,
        },
        local: { command: "server", args: ["--x"], env: { A: "b" }, enabled_tools: ["read"] },
      },
    });
    expect(servers.remote).toMatchObject({
      url: "https://example.test/mcp",
      headers: { Authorization: "Bearer t", "X-Team": "core", "X-Token": "t" },
      timeout: 2500,
    });
    expect(servers.local).toMatchObject({
      command: "server",
      args: ["--x"],
      toolFilter: { include: ["read"] },
    });
    expect(ignored).toEqual([["remote", 'MCP server "remote": the key "startup_timeout_sec" is not used']]);
    expect(() =>
      parse({ mcp_servers: { remote: { url: "https://x.test", bearer_token_env_var: "UNSET" } } }),
    ).toThrow(/mcp_servers\.remote\.headers\.Authorization uses \$\{UNSET\}, which is not set/);
  });

  it("opencode's mcp: local command arrays and remote URLs; its other top-level keys reported", () => {
    const { servers, ignored } = parse({
      $schema: "https://opencode.ai/config.json",
      model: "anthropic/claude",
      mcp: {
        local: { type: "local", command: ["npx", "-y", "server"], environment: { A: "${HOME_TOKEN}" } },
        remote: { type: "remote", url: "https://example.test/mcp", headers: { K: "v" }, oauth: false },
      },
      tools: { "local_*": false },
    });
    expect(servers.local).toMatchObject({
      command: "npx",
      args: ["-y", "server"],
      env: { A: "t" },
      toolFilter: { globs: [["local_*", false]] },
    });
    expect(servers.remote).toMatchObject({
      type: "http",
      url: "https://example.test/mcp",
      headers: { K: "v" },
    });
    expect(ignored).toEqual([
      ["(config)", 'the top-level key "model" is not used'],
      ["remote", 'MCP server "remote": the key "oauth" is not used'],
    ]);
  });

  it("McpServers tells the ignored parts as warnings and runs the servers of a VS Code config", async () => {
    const warnings: McpWarning[] = [];
    const mcp = new McpServers(
      {
        servers: { toy: { type: "stdio", command: process.execPath, args: [TOY_SERVER], alwaysAllow: [] } },
      } as never,
      { workspaceFolder: workspace, onWarning: (warning) => warnings.push(warning) },
    );
    try {
      const discovery = await mcp.discover();
      expect(discovery.warnings).toEqual([
        {
          server: "toy",
          code: "config_ignored",
          message: 'MCP server "toy": the key "alwaysAllow" is not used',
        },
      ]);
      expect(warnings).toEqual(discovery.warnings);
      const echo = byName(discovery.tools, "mcp_toy_echo_text");
      expect(textOf(await callTool(echo, { text: "vs code" }))).toContain("vs code");
      expect((await mcp.discover()).warnings).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});
