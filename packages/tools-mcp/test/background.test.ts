// Servers connect in the background: the first model request never waits for one, a server's tools join
// from the request after it is up, and a server that fails says so once, naming itself.
import { type AnyTool, defineTool, Harness, type RunEvent } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ConnectionState, fromAcpSession, McpServers } from "../src/index.js";
import { TOY_SERVER } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

/** A local tool that returns once `until` resolves: the model's turn spent while a server starts. */
function waitTool(until: () => Promise<unknown>): AnyTool {
  return defineTool({
    name: "wait_for_servers",
    description: "waits",
    inputSchema: z.object({}),
    execute: async () => {
      await until();
      return { content: "waited" };
    },
  });
}

const requests = (events: readonly RunEvent[]) =>
  events.flatMap((event) => (event.type === "model_request" ? [event] : []));
const facts = (events: readonly RunEvent[], kind: string) =>
  events.flatMap((event) => (event.type === "fact" && event.kind === kind ? [event] : []));

describe("servers in the background", () => {
  it("a server that takes 10 s to initialise: the first request leaves without it, its tools join once it is up", async () => {
    const mcp = new McpServers({
      mcpServers: {
        slow: { command: process.execPath, args: [TOY_SERVER, "--init-delay-ms=10000", "--tag=bg-slow"] },
      },
    });
    try {
      const source = mcp.background();
      let stateAtFirstRequest: ConnectionState | undefined;
      const model = new ScriptedModel([
        () => {
          stateAtFirstRequest = mcp.status()[0]?.state;
          return { toolCalls: [{ name: "wait_for_servers", arguments: {} }] };
        },
        { toolCalls: [{ name: "mcp_slow_echo_text", arguments: { text: "late but here" } }] },
        { text: "done" },
      ]);
      const harness = new Harness({
        model,
        workspace: dir,
        tools: [waitTool(() => source.settled)],
        toolSources: [source],
      });
      const stream = harness.stream({ prompt: "go" });
      const events = await collectEvents(stream);
      const result = await stream.result;
      expect(result.stopReason).toBe("completed");
      // The first request went out while the server was still in its handshake.
      expect(stateAtFirstRequest).toBe("connecting");
      const [first, second, third] = requests(events);
      expect(first?.toolNames).toEqual(["wait_for_servers"]);
      expect(second?.toolNames).toContain("mcp_slow_echo_text");
      expect(third?.toolNames).toEqual(second?.toolNames);
      // Told on the stream between the request that went without it and the one that offers its tools.
      const ready = facts(events, "mcp.server_ready");
      expect(ready).toHaveLength(1);
      expect(ready[0]?.data).toMatchObject({ server: "slow" });
      expect((ready[0]?.data as { tools?: string[] } | undefined)?.tools).toContain("mcp_slow_echo_text");
      expect(events.indexOf(first as RunEvent)).toBeLessThan(events.indexOf(ready[0] as RunEvent));
      expect(events.indexOf(ready[0] as RunEvent)).toBeLessThan(events.indexOf(second as RunEvent));
      const echoed = result.messages.find(
        (message) => message.role === "tool" && message.toolName === "mcp_slow_echo_text",
      );
      expect(JSON.stringify(echoed)).toContain("late but here");
    } finally {
      await mcp.close();
    }
  });

  it("a server that fails says so once, with its name, and the others' tools are offered", async () => {
    const mcp = new McpServers({
      mcpServers: {
        broken: { command: process.execPath, args: ["-e", "process.exit(3)"] },
        toy: { command: process.execPath, args: [TOY_SERVER, "--tag=bg-fail"] },
      },
    });
    try {
      const source = mcp.background();
      const model = new ScriptedModel([
        { toolCalls: [{ name: "wait_for_servers", arguments: {} }] },
        { text: "first run done" },
        { text: "second run done" },
      ]);
      const harness = new Harness({
        model,
        workspace: dir,
        tools: [waitTool(() => source.settled)],
        toolSources: [source],
      });
      const firstRun = await collectEvents(harness.stream({ prompt: "one" }));
      const secondRun = await collectEvents(harness.stream({ prompt: "two" }));
      const failed = [...facts(firstRun, "mcp.server_failed"), ...facts(secondRun, "mcp.server_failed")];
      expect(failed).toHaveLength(1);
      const data = failed[0]?.data as { server: string; message: string };
      expect(data.server).toBe("broken");
      expect(data.message).toMatch(/^MCP server "broken" failed to start; its tools are not offered: /);
      const offered = requests(secondRun)[0]?.toolNames ?? [];
      expect(offered).toContain("mcp_toy_echo_text");
      expect(offered.some((name) => name.startsWith("mcp_broken_"))).toBe(false);
      expect(mcp.background()).toBe(source);
    } finally {
      await mcp.close();
    }
  });

  it("a tool the server adds while the run goes on is offered from the next request", async () => {
    const mcp = new McpServers({
      mcpServers: { toy: { command: process.execPath, args: [TOY_SERVER, "--tag=bg-change"] } },
    });
    try {
      const source = mcp.background();
      await source.settled;
      const extraJoined = new Promise<void>((resolve) => {
        source.onChange(() => {
          if (source.tools().some((tool) => tool.name === "mcp_toy_extra")) resolve();
        });
      });
      const model = new ScriptedModel([
        { toolCalls: [{ name: "mcp_toy_add_tool", arguments: {} }] },
        { toolCalls: [{ name: "wait_for_servers", arguments: {} }] },
        { toolCalls: [{ name: "mcp_toy_extra", arguments: {} }] },
        { text: "done" },
      ]);
      const harness = new Harness({
        model,
        workspace: dir,
        tools: [waitTool(() => extraJoined)],
        toolSources: [source],
      });
      const stream = harness.stream({ prompt: "go" });
      const events = await collectEvents(stream);
      const result = await stream.result;
      expect(result.stopReason).toBe("completed");
      const names = requests(events).map((request) => request.toolNames.includes("mcp_toy_extra"));
      // Not before the server announced it; from the request after the wait on (the second request may
      // or may not see it, depending on when the list was fetched again).
      expect(names[0]).toBe(false);
      expect(names.slice(2)).toEqual([true, true]);
      expect(JSON.stringify(result.messages.at(-2))).toContain("extra works");
    } finally {
      await mcp.close();
    }
  });

  it("servers an ACP client hands over at session start take the same path", async () => {
    const config = fromAcpSession([
      {
        name: "toy",
        command: process.execPath,
        args: [TOY_SERVER, "--tag=bg-acp"],
        env: [{ name: "TOY_NOTE", value: "from acp" }],
      },
      {
        type: "http",
        name: "remote",
        url: "http://127.0.0.1:9/mcp",
        headers: [{ name: "X-Key", value: "k" }],
      },
    ]);
    expect(config).toEqual({
      mcpServers: {
        toy: { command: process.execPath, args: [TOY_SERVER, "--tag=bg-acp"], env: { TOY_NOTE: "from acp" } },
        remote: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { "X-Key": "k" } },
      },
    });
    // The remote one is refused at once (port 9); the toy one is a node process that a loaded machine
    // may take many seconds to start, so its handshake gets the generous limit of a hang, not 5 s.
    const mcp = new McpServers(config, { connectTimeoutMs: 60_000 });
    try {
      const source = mcp.background();
      await source.settled;
      const names = source.tools().map((tool) => tool.name);
      expect(names).toContain("mcp_toy_echo_text");
      const told = source.takeFacts();
      expect(told.map((fact) => [fact.kind, fact.data.server]).sort()).toEqual([
        ["mcp.server_failed", "remote"],
        ["mcp.server_ready", "toy"],
      ]);
      expect(source.takeFacts()).toEqual([]);
    } finally {
      await mcp.close();
    }
    expect(() =>
      fromAcpSession([
        { name: "twice", command: "a", args: [], env: [] },
        { name: "twice", command: "b", args: [], env: [] },
      ]),
    ).toThrow(/names two MCP servers "twice"/);
  });
});
