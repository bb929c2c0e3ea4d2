import { randomUUID } from "node:crypto";
import { Harness, ToolFailure, toolSchemaOf } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { afterEach, describe, expect, it } from "vitest";
import { McpServers } from "../src/index.js";
import {
  byName,
  callTool,
  processesMentioning,
  running,
  TOY_SERVER,
  textOf,
  toyConfig,
  waitFor,
} from "./helpers.js";

const open: McpServers[] = [];
function servers(tag: string, names: string[], options = {}): McpServers {
  const mcp = new McpServers(toyConfig(tag, ...names), options);
  open.push(mcp);
  return mcp;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((mcp) => mcp.close()));
});

describe("McpServers against a scripted stdio server", () => {
  it("starts nothing until tools are asked for, then names and annotates them", async () => {
    const tag = randomUUID();
    const mcp = servers(tag, ["toy"]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(processesMentioning(tag)).toEqual([]);
    expect(mcp.status()[0]?.state).toBe("idle");

    const tools = await mcp.tools();
    expect(processesMentioning(tag)).toHaveLength(1);
    const echo = byName(tools, "mcp_toy_echo_text");
    expect(echo.annotations).toEqual({
      read_only: true,
      destructive: false,
      idempotent: false,
      open_world: false,
    });
    expect(toolSchemaOf(echo).inputSchema).toEqual({
      type: "object",
      properties: { text: { type: "string", minLength: 1 }, times: { type: "integer", minimum: 1 } },
      required: ["text"],
      additionalProperties: false,
    });
    expect(textOf(await callTool(echo, { text: "ab", times: 2 }))).toBe("abab");
    // The schema shown is the schema enforced: what it forbids never reaches the server.
    await expect(callTool(echo, { text: "" })).rejects.toThrow(/text/);
    await expect(callTool(echo, { text: "a", colour: "red" })).rejects.toThrow(/colour: unknown field/);
  });

  it("refuses a name collision with an error naming both tools", async () => {
    const mcp = servers(randomUUID(), ["my.toy", "my_toy"]);
    const discovery = await mcp.discover();
    const duplicates = discovery.failures.filter((failure) => failure.code === "duplicate_tool");
    const echo = duplicates.find((failure) => failure.message.includes('tool "echo.text"'));
    expect(echo?.message).toContain(
      'tool "echo.text" of MCP server "my_toy" would be named "mcp_my_toy_echo_text"',
    );
    expect(echo?.message).toContain('MCP server "my.toy"');
    await expect(mcp.tools()).rejects.toMatchObject({ code: "duplicate_tool" });
  });

  it("marks a tool error result as failed and keeps structured content in details", async () => {
    const tools = await servers(randomUUID(), ["toy"]).tools();
    const failed = await callTool(byName(tools, "mcp_toy_fail"), {});
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toBe("the toy failed on purpose");
    const structured = await callTool(byName(tools, "mcp_toy_structured"), {});
    expect(textOf(structured)).toBe("sum is 3");
    expect(structured.details).toMatchObject({
      server: "toy",
      tool: "structured",
      structuredContent: { sum: 3, parts: [1, 2] },
    });
    // Output that breaks the tool's own output schema is the server's fault, not the model's arguments.
    await expect(callTool(byName(tools, "mcp_toy_bad_output"), {})).rejects.toMatchObject({
      kind: "ToolError",
      message: expect.stringMatching(/output schema/),
    });
  });

  it("cuts a huge result to maxOutputChars and says so", async () => {
    const tools = await servers(randomUUID(), ["toy"], { maxOutputChars: 1_000 }).tools();
    const output = await callTool(byName(tools, "mcp_toy_big"), { n: 200_000 });
    expect(textOf(output).length).toBeLessThan(1_100);
    expect(textOf(output)).toContain("199000 more characters cut");
    expect(output.details).toMatchObject({ truncatedChars: 199_000 });
  });

  it("lets progress notifications extend a call past its timeout, and times out a silent one", async () => {
    // 5 steps of 500 ms take 2.5 s, past the 1.5 s timeout; each step's notification restarts the wait.
    const tools = await servers(randomUUID(), ["toy"], { callTimeoutMs: 1_500 }).tools();
    const slow = byName(tools, "mcp_toy_slow");
    const progress: unknown[] = [];
    const output = await callTool(slow, { steps: 5, stepMs: 500 }, { onProgress: (p) => progress.push(p) });
    expect(textOf(output)).toBe("done after 5 steps");
    // The last notification may race the response, after which the SDK drops it.
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect(progress[0]).toMatchObject({
      server: "toy",
      tool: "slow",
      progress: 1,
      total: 5,
      message: "step 1",
    });

    const silent = callTool(slow, { steps: 5, stepMs: 500, quiet: true });
    await expect(silent).rejects.toBeInstanceOf(ToolFailure);
    await expect(silent).rejects.toMatchObject({ kind: "Timeout" });
  });

  it("sends a cancellation to the server when the call is aborted", async () => {
    const tools = await servers(randomUUID(), ["toy"]).tools();
    const controller = new AbortController();
    const call = callTool(
      byName(tools, "mcp_toy_slow"),
      { steps: 40, stepMs: 100 },
      {
        signal: controller.signal,
        onProgress: () => controller.abort(new Error("user pressed stop")),
      },
    );
    await expect(call).rejects.toMatchObject({ kind: "Cancelled" });
    // The server notices the cancellation at its next step.
    const counted = byName(tools, "mcp_toy_cancellations");
    let seen = "0";
    for (let i = 0; i < 40 && seen === "0"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = textOf(await callTool(counted, {}));
    }
    expect(seen).toBe("1");
  });

  it("reports a crash as a tool failure with the server's stderr and restarts on the next call", async () => {
    const tag = randomUUID();
    const mcp = servers(tag, ["toy"]);
    const tools = await mcp.tools();
    const pid = Number(textOf(await callTool(byName(tools, "mcp_toy_pid"), {})));

    const crash = callTool(byName(tools, "mcp_toy_crash"), {});
    await expect(crash).rejects.toMatchObject({ kind: "ToolError" });
    await expect(crash).rejects.toThrow(
      /stopped while calling crash.*started again on the next call[\s\S]*toy: crashing on purpose/,
    );
    expect(await waitFor(() => !running(pid))).toBe(true);
    expect(mcp.status()[0]).toMatchObject({ state: "crashed" });

    const again = Number(textOf(await callTool(byName(tools, "mcp_toy_pid"), {})));
    expect(again).not.toBe(pid);
    expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 1 });
  });

  it("refreshes the tool list on tools/list_changed", async () => {
    const mcp = servers(randomUUID(), ["toy"]);
    const before = await mcp.tools();
    expect(before.map((tool) => tool.name)).not.toContain("mcp_toy_extra");
    const changed = new Promise<string>((resolve) => mcp.onToolsChanged(resolve));
    await callTool(byName(before, "mcp_toy_add_tool"), {});
    expect(await changed).toBe("toy");
    const after = await mcp.tools();
    expect(textOf(await callTool(byName(after, "mcp_toy_extra"), {}))).toBe("extra works");
  });

  it("stops the servers and the processes they started on close", async () => {
    const tag = randomUUID();
    const mcp = servers(tag, ["one", "two"]);
    const tools = await mcp.tools();
    const grandchild = Number(textOf(await callTool(byName(tools, "mcp_one_spawn_child"), {})));
    expect(running(grandchild)).toBe(true);
    expect(processesMentioning(tag)).toHaveLength(2);

    await mcp.close();
    expect(processesMentioning(tag)).toEqual([]);
    expect(running(grandchild)).toBe(false);
    await expect(callTool(byName(tools, "mcp_two_pid"), {})).rejects.toThrow(/has been closed/);
  });

  it("closes without waiting for a server that never answers the handshake", async () => {
    const tag = randomUUID();
    const mute = `setInterval(() => {}, 1000) // ${tag}`;
    const mcp = new McpServers(
      { mcpServers: { mute: { command: process.execPath, args: ["-e", mute] } } },
      // Far longer than the test's own timeout: only close() can end this handshake in time.
      { connectTimeoutMs: 120_000 },
    );
    const discovery = mcp.discover();
    expect(await waitFor(() => processesMentioning(tag).length === 1)).toBe(true);
    await mcp.close();
    const { failures } = await discovery;
    expect(failures).toMatchObject([{ server: "mute", code: "connect_failed" }]);
    expect(processesMentioning(tag)).toEqual([]);
  });

  it("stops a server started through a wrapper (like npx) and the wrapper", async () => {
    const tag = randomUUID();
    // "; true" keeps sh alive as the parent, as npx stays the parent of the server it starts.
    const command = `"${process.execPath}" "${TOY_SERVER}" --tag=${tag}; true`;
    const mcp = new McpServers({ mcpServers: { wrapped: { command: "sh", args: ["-c", command] } } });
    open.push(mcp);
    const tools = await mcp.tools();
    const server = Number(textOf(await callTool(byName(tools, "mcp_wrapped_pid"), {})));
    const wrapper = mcp.status()[0]?.pid as number;
    expect(server).not.toBe(wrapper);
    await mcp.close();
    expect(running(server)).toBe(false);
    expect(running(wrapper)).toBe(false);
    expect(processesMentioning(tag)).toEqual([]);
  });

  it("passes progress to the run's events, and a run's abort reaches the server as a cancellation", async () => {
    const logs: string[] = [];
    const mcp = servers(randomUUID(), ["toy"], {
      onStderr: (server: string, text: string) => logs.push(`${server}: ${text}`),
    });
    const tools = await mcp.tools();
    const model = new ScriptedModel([
      { toolCalls: [{ id: "s1", name: "mcp_toy_slow", arguments: { steps: 50, stepMs: 100 } }] },
      { text: "not reached" },
    ]);
    const run = new Harness({ model, tools }).stream({ prompt: "go" });
    const progress: unknown[] = [];
    for await (const event of run) {
      if (event.type === "tool_progress") {
        progress.push(event.data);
        run.abort(new Error("stop"));
      }
    }
    const result = await run.result;
    expect(result.stopReason).toBe("aborted");
    expect(progress[0]).toMatchObject({ server: "toy", tool: "slow", progress: 1, total: 50 });
    expect(result.messages.find((message) => message.role === "tool")).toMatchObject({
      errorKind: "Cancelled",
    });
    let seen = "0";
    for (let i = 0; i < 40 && seen === "0"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = textOf(await callTool(byName(tools, "mcp_toy_cancellations"), {}));
    }
    expect(seen).toBe("1");

    await callTool(byName(tools, "mcp_toy_crash"), {}).catch(() => {});
    expect(logs.join("")).toContain("toy: toy: crashing on purpose");
  });

  it("runs through the harness like any other tool", async () => {
    const mcp = servers(randomUUID(), ["toy"]);
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "c1", name: "mcp_toy_echo_text", arguments: { text: "hi" } },
          { id: "c2", name: "mcp_toy_fail" },
        ],
      },
      { text: "done" },
    ]);
    const harness = new Harness({ model, tools: await mcp.tools() });
    const result = await harness.run({ prompt: "go" });
    expect(result.stopReason).toBe("completed");
    const results = result.messages.filter((message) => message.role === "tool");
    expect(results.map((message) => [message.toolCallId, message.isError])).toEqual([
      ["c1", false],
      ["c2", true],
    ]);
    const shown = model.requests[0]?.tools.find((tool) => tool.name === "mcp_toy_echo_text");
    expect(shown?.inputSchema).toMatchObject({ required: ["text"], additionalProperties: false });
  });
});
