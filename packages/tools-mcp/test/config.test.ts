import { readFile } from "node:fs/promises";
import { BridleError } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { McpServers, parseMcpConfig } from "../src/index.js";

describe("parseMcpConfig", () => {
  it("reads the shape other agents write, keeping keys it does not use out of the way", () => {
    const servers = parseMcpConfig({
      mcpServers: {
        files: {
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-filesystem", "."],
          autoApprove: [],
        },
        remote: { type: "http", url: "https://example.test/mcp", headers: { authorization: "Bearer x" } },
        legacy: { url: "http://127.0.0.1:3001/sse", type: "sse" },
        bare: { command: "my-server" },
        off: { command: "never-started", disabled: true },
      },
    });
    expect(Object.keys(servers)).toEqual(["files", "remote", "legacy", "bare"]);
    expect(servers.bare).toMatchObject({ command: "my-server", args: [], env: {} });
    expect(servers.remote).toMatchObject({
      url: "https://example.test/mcp",
      headers: { authorization: "Bearer x" },
    });
  });

  it("fills in environment references the way Claude Code, Cursor and VS Code configs write them", async () => {
    const text = await readFile(new URL("./fixtures/env-refs.mcp.json", import.meta.url), "utf8");
    const env = { TOKEN: "s3cret", HOST: "mcp.example.test" };
    const servers = parseMcpConfig(text, { env });
    expect(servers.remote).toMatchObject({
      url: "https://mcp.example.test/mcp",
      headers: { Authorization: "Bearer s3cret" },
    });
    expect(servers.local).toMatchObject({ args: ["--port", "8080"], env: { KEY: "s3cret" } });
    const enabled = text.replace('"disabled": true', '"disabled": false');
    expect(() => parseMcpConfig(enabled, { env })).toThrow(
      /mcpServers\.broken\.args\.0 uses \$\{MISSING_VAR\}, which is not set/,
    );
  });

  it.each([
    ["not JSON", "{mcpServers:", /not valid JSON/],
    ["no mcpServers", {}, /mcpServers/],
    ["neither command nor url", { mcpServers: { x: { args: [] } } }, /either `command`.*or `url`/],
    ["an empty command", { mcpServers: { x: { command: "" } } }, /x/],
    ["a non-http url", { mcpServers: { x: { url: "file:///etc/passwd" } } }, /x/],
    [
      "both command and url",
      { mcpServers: { x: { command: "a", url: "http://127.0.0.1/" } } },
      /both command and url/,
    ],
    ["args that are not strings", { mcpServers: { x: { command: "a", args: [1] } } }, /x/],
    ["a zero timeout", { mcpServers: { x: { command: "a", timeout: 0 } } }, /x/],
  ])("refuses %s with invalid_config", (_, input, message) => {
    let thrown: unknown;
    try {
      parseMcpConfig(input as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BridleError);
    expect((thrown as BridleError).code).toBe("invalid_config");
    expect((thrown as BridleError).message).toMatch(message);
  });

  it("is checked when McpServers is built, before anything starts", () => {
    expect(() => new McpServers({ mcpServers: { x: {} } } as never)).toThrow(BridleError);
  });

  it("reports a server that cannot start without losing the others", async () => {
    const mcp = new McpServers({
      mcpServers: {
        missing: { command: "/nonexistent/bridle-mcp-server" },
        closed: { url: "http://127.0.0.1:9/mcp" },
      },
    });
    try {
      const discovery = await mcp.discover();
      expect(discovery.tools).toEqual([]);
      expect(discovery.failures.map((f) => [f.server, f.code])).toEqual([
        ["missing", "connect_failed"],
        ["closed", "connect_failed"],
      ]);
      expect(discovery.failures[0]?.message).toMatch(/could not connect to MCP server "missing"/);
      await expect(mcp.tools()).rejects.toMatchObject({ code: "tool_infrastructure" });
    } finally {
      await mcp.close();
    }
  });
});
