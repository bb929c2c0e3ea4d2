// MCP servers never hold up the start (the default, --mcp-startup background): the first model request
// leaves while a server slow to initialise is still starting, its tools are offered once it is up, and a
// server that fails to start is said once, by name.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, queueTurns, runCli, toolOutputsSent } from "./cli-harness.js";

const TOY = fileURLToPath(
  new URL("../../../packages/tools-mcp/test/fixtures/toy-server.mjs", import.meta.url),
);

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-mcp-startup-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

const toolsOf = (body: unknown) =>
  ((body as { tools?: { name?: string }[] } | undefined)?.tools ?? []).map((tool) => tool.name);

describe("MCP servers at start-up", () => {
  it("a server that takes 10 s to initialise: the first request leaves without it, its tools are offered once it is up", async () => {
    const listed = join(dir, "listed");
    const config = join(dir, "mcp.json");
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          slow: {
            command: process.execPath,
            args: [TOY, "--init-delay-ms=10000", `--listed-file=${listed}`],
          },
          broken: { command: process.execPath, args: ["-e", "process.exit(3)"] },
        },
      }),
    );
    server = await FakeProviderServer.start();
    let listedAtFirstRequest: boolean | undefined;
    const firstRequest = server.requests;
    queueTurns(server, [
      // Waits until the slow server has sent its tool list (bounded, so a broken run ends).
      {
        toolCalls: [
          call("c1", "bash", {
            command: `for i in $(seq 1200); do [ -e '${listed}' ] && break; sleep 0.1; done; echo waited`,
          }),
        ],
      },
      { toolCalls: [call("c2", "bash", { command: "sleep 1; echo again" })] },
      { toolCalls: [call("c3", "mcp_slow_echo_text", { text: "late but here" })] },
      { text: "done" },
    ]);
    const running = runCli(
      [
        "run",
        "use the slow server",
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
        openaiResponsesFormat.baseUrl(server.url),
        "--cwd",
        repo,
        "--mcp",
        config,
        "--sandbox",
        "off",
        "--yes",
      ],
      {
        cwd: repo,
        env: { OPENAI_API_KEY: "k", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
      },
    );
    // Read as soon as the first request arrives: had it waited for the server, the list would be sent.
    const watch = setInterval(() => {
      if (listedAtFirstRequest === undefined && firstRequest.length > 0)
        listedAtFirstRequest = existsSync(listed);
    }, 5);
    const run = await running.finally(() => clearInterval(watch));
    expect(run.code, run.stderr).toBe(0);
    expect(listedAtFirstRequest).toBe(false);
    const offered = server.requests.map((request) => toolsOf(request.body));
    expect(offered[0]).not.toContain("mcp_slow_echo_text");
    expect(offered[0]).toContain("bash");
    // From the request after the list was sent on (the one right after may or may not have it yet).
    expect(offered[2]).toContain("mcp_slow_echo_text");
    expect(offered[3]).toContain("mcp_slow_echo_text");
    expect(toolOutputsSent(server).join("\n")).toContain("late but here");
    // The broken server is said once, by name; none of its tools is offered.
    const told = run.stderr.split("\n").filter((line) => line.includes('MCP server "broken"'));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(
      /^bridle: warning: MCP server "broken" failed to start; its tools are not offered: /,
    );
    expect(offered.flat().some((name) => name?.startsWith("mcp_broken_"))).toBe(false);
    expect(run.stdout).toContain("done");
  }, 120_000);
});
