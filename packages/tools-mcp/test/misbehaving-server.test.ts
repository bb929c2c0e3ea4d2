// A careless or hostile server must cost at most its own tools or its own call: never the other tools of
// its list, a restart of a healthy process, the run, or a model request stuffed with its schemas.
import { randomUUID } from "node:crypto";
import { defineTool, Harness, ToolFailure, toolSchemaOf } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { McpServers, type McpServersOptions, type McpWarning } from "../src/index.js";
import { byName, callTool, TOY_SERVER, textOf } from "./helpers.js";

const open: McpServers[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((mcp) => mcp.close()));
});

/** Toy servers given extra command-line flags (see the fixture's header). */
function servers(
  entries: Record<string, readonly string[]>,
  options: McpServersOptions = {},
): { mcp: McpServers; warnings: McpWarning[] } {
  const tag = randomUUID();
  const warnings: McpWarning[] = [];
  const config = {
    mcpServers: Object.fromEntries(
      Object.entries(entries).map(([name, flags]) => [
        name,
        { command: process.execPath, args: [TOY_SERVER, `--tag=${tag}`, ...flags] },
      ]),
    ),
  };
  const mcp = new McpServers(config, { ...options, onWarning: (warning) => warnings.push(warning) });
  open.push(mcp);
  return { mcp, warnings };
}

const MALFORMED = [
  "result_content_not_list",
  "result_block_without_text",
  "result_unknown_block",
  "result_error_not_boolean",
];

describe("broken tool definitions", () => {
  it("cost only themselves: the rest of the list loads, and each is named in a warning", async () => {
    const { mcp, warnings } = servers({ toy: ["--misbehave"] });
    const discovery = await mcp.discover();
    expect(discovery.failures).toEqual([]);
    const names = discovery.tools.map((tool) => tool.name);
    expect(names).toContain("mcp_toy_echo_text");
    expect(names).toContain("mcp_toy_no_schema");
    expect(names).not.toContain("mcp_toy_schema_not_object");
    expect(warnings).toEqual(discovery.warnings);
    const byCode = (code: McpWarning["code"]) =>
      warnings.filter((w) => w.code === code).map((w) => w.message);
    expect(byCode("tool_definition_repaired")).toEqual([
      'MCP server "toy", tool "no_schema": has no input schema; taken as taking no arguments',
    ]);
    const invalid = byCode("tool_definition_invalid");
    expect(invalid).toHaveLength(4);
    expect(invalid).toContain('MCP server "toy", tool "pid": listed again; left out');
    expect(toolSchemaOf(byName(discovery.tools, "mcp_toy_pid")).inputSchema).toMatchObject({
      properties: {},
    });
    expect(invalid[0]).toMatch(/tool "schema_not_object": invalid definition \(inputSchema/);
    expect(invalid.join("\n")).toMatch(/tool number \d+ in its list: invalid definition \(name/);
    expect(invalid.join("\n")).toMatch(/not a tool definition; left out/);
    expect(warnings.every((w) => w.server === "toy")).toBe(true);
  });

  it("a tool without an input schema takes no arguments, and works", async () => {
    const { mcp } = servers({ toy: ["--misbehave"] });
    const tool = byName(await mcp.tools(), "mcp_toy_no_schema");
    expect(toolSchemaOf(tool).inputSchema).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
    expect(textOf(await callTool(tool, {}))).toBe("no_schema got {}");
    await expect(callTool(tool, { path: "/etc" })).rejects.toThrow(/path: unknown field/);
  });
});

describe("malformed results", () => {
  it.each(MALFORMED)(
    "%s fails that call as a ToolError; the same process answers the next one",
    async (name) => {
      const { mcp } = servers({ toy: ["--misbehave"] });
      const tools = await mcp.tools();
      const pid = Number(textOf(await callTool(byName(tools, "mcp_toy_pid"), {})));
      const failure = await callTool(byName(tools, `mcp_toy_${name}`), {}).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ToolFailure);
      expect((failure as ToolFailure).kind).toBe("ToolError");
      expect((failure as ToolFailure).message).toMatch(
        new RegExp(
          `MCP server "toy" returned an invalid result for ${name} \\(.+\\); the call failed, the server keeps running`,
        ),
      );
      expect(Number(textOf(await callTool(byName(tools, "mcp_toy_pid"), {})))).toBe(pid);
      expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 0 });
    },
  );

  it("a result that is not a JSON-RPC result at all ends that call at its timeout; no restart", async () => {
    const { mcp } = servers({ toy: ["--misbehave"] }, { callTimeoutMs: 300 });
    const tools = await mcp.tools();
    const pid = Number(textOf(await callTool(byName(tools, "mcp_toy_pid"), {})));
    const failure = await callTool(byName(tools, "mcp_toy_result_not_object"), {}).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(ToolFailure);
    expect((failure as ToolFailure).kind).toBe("Timeout");
    expect(Number(textOf(await callTool(byName(tools, "mcp_toy_pid"), {})))).toBe(pid);
    expect(mcp.status()[0]).toMatchObject({ state: "ready", restarts: 0 });
  });

  it("a run calling them goes on: each failure is a tool result the model reads", async () => {
    const { mcp } = servers({ toy: ["--misbehave"] });
    const model = new ScriptedModel([
      {
        toolCalls: [
          ...MALFORMED.map((name, i) => ({ name: `mcp_toy_${name}`, id: `m${i}` })),
          { name: "mcp_toy_echo_text", id: "ok", arguments: { text: "still here" } },
        ],
      },
      { text: "finished" },
    ]);
    const harness = new Harness({ model, tools: await mcp.tools() });
    const result = await harness.run({ prompt: "call the broken tools" });
    expect(result.stopReason).toBe("completed");
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.role === "tool" && m.isError)).toEqual([true, true, true, true, false]);
    expect(results.at(-1)?.role === "tool" && JSON.stringify(results.at(-1)?.content)).toContain(
      "still here",
    );
    expect(mcp.status()[0]?.restarts).toBe(0);
  });
});

describe("caps on what servers put in every request", () => {
  it("a server announcing 20,000 tools: the request stays under the byte cap, with a warning naming it", async () => {
    const maxSchemaBytes = 32 * 1024;
    const { mcp, warnings } = servers({ big: ["--bulk=20000"], toy: [] }, { maxSchemaBytes });
    const tools = await mcp.tools();
    const capped = warnings.find((w) => w.code === "tools_per_server_capped");
    expect(capped).toMatchObject({ server: "big" });
    expect(capped?.message).toMatch(
      /MCP server "big" offers 20014 tools; only the first 128 by name are used/,
    );
    expect(tools.filter((tool) => tool.name.startsWith("mcp_big_")).length).toBeLessThanOrEqual(128);

    // What the model is sent: measured on a real request, our own tool beside the MCP ones.
    const own = defineTool({
      name: "note",
      description: "keeps a note",
      inputSchema: z.object({ text: z.string().describe("the note") }),
      execute: async () => ({ content: "ok" }),
    });
    const model = new ScriptedModel([{ text: "done" }]);
    await new Harness({ model, tools: [own, ...tools] }).run({ prompt: "hi" });
    const sent = model.requests[0]?.tools ?? [];
    const mcpBytes = Buffer.byteLength(JSON.stringify(sent.filter((t) => t.name.startsWith("mcp_"))));
    expect(mcpBytes).toBeLessThanOrEqual(maxSchemaBytes);
    expect(sent.some((t) => t.name === "note")).toBe(true);
    expect(mcpBytes).toBeGreaterThan(maxSchemaBytes - 1024);
    // The budget filled up within the first server (config order, then by name): the rest of its tools
    // and all of the second server's were left out, and each server is told so.
    const left = warnings.filter((w) => w.code === "schema_bytes_capped");
    expect(left.map((w) => w.server)).toEqual(["big", "toy"]);
    expect(left[0]?.message).toMatch(
      /MCP server "big": \d+ tool\(s\) left out to keep MCP tool definitions within 32768 bytes per request \(maxSchemaBytes\): bulk_\d+/,
    );
    expect(sent.filter((t) => t.name.startsWith("mcp_toy_"))).toEqual([]);
  });

  it("keeps the same tools whatever order the server lists them in (the first by name)", async () => {
    const { mcp } = servers({ big: ["--bulk=300"] }, { maxToolsPerServer: 5 });
    const names = (await mcp.tools()).map((tool) => tool.name);
    expect(names).toEqual([
      "mcp_big_add_tool",
      "mcp_big_bad_output",
      "mcp_big_big",
      "mcp_big_bulk_00000",
      "mcp_big_bulk_00001",
    ]);
  });

  it("defaults are sensible: a normal server is untouched, and no warning is given", async () => {
    const { mcp, warnings } = servers({ toy: [] });
    const tools = await mcp.tools();
    expect(tools.length).toBeGreaterThan(10);
    expect(warnings).toEqual([]);
  });
});
