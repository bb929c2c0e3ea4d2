// Calls to tools a server does not mark read-only go one at a time, in the model's order, within their
// server: server-memory reads its file, changes it and writes it back per call, so overlapping writes
// lose entities. Read-only calls may overlap.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AnyHook, defineHook, Harness } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { afterEach, describe, expect, it } from "vitest";
import { McpServers } from "../src/index.js";
import { byName, callTool, MEMORY_SERVER, textOf } from "./helpers.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function memory(): Promise<{ mcp: McpServers; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), "bridle-mcp-memory-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "memory.jsonl");
  const mcp = new McpServers({
    mcpServers: {
      memory: { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: file } },
    },
  });
  cleanup.push(() => mcp.close());
  return { mcp, file };
}

const entity = (name: string) => ({
  entities: [{ name, entityType: "person", observations: [`${name} was written in one turn`] }],
});

describe("writes to server-memory in one model turn", () => {
  it.each([1, 2, 3])("lose no entity and land in the model's order (trial %i)", async () => {
    const { mcp, file } = await memory();
    const tools = await mcp.tools();
    expect(byName(tools, "mcp_memory_create_entities").annotations?.read_only).toBe(false);
    const model = new ScriptedModel([
      {
        toolCalls: ["ada", "grace", "linus"].map((name, i) => ({
          name: "mcp_memory_create_entities",
          id: `w${i}`,
          arguments: entity(name),
        })),
      },
      {
        toolCalls: [
          { name: "mcp_memory_read_graph", id: "r1", arguments: {} },
          { name: "mcp_memory_search_nodes", id: "r2", arguments: { query: "grace" } },
        ],
      },
      { text: "stored" },
    ]);
    const result = await new Harness({ model, tools }).run({ prompt: "remember three people" });
    expect(result.stopReason).toBe("completed");
    const failed = result.messages.filter((m) => m.role === "tool" && m.isError);
    expect(failed).toEqual([]);

    const lines = (await readFile(file, "utf8")).trim().split("\n");
    const names = lines.map((line) => (JSON.parse(line) as { name: string }).name);
    expect(names).toEqual(["ada", "grace", "linus"]);
    const graph = textOf(await callTool(byName(tools, "mcp_memory_read_graph"), {}));
    for (const name of ["ada", "grace", "linus"]) expect(graph).toContain(name);
  });

  it("a write aborted while it waits its turn never reaches the server", async () => {
    const { mcp, file } = await memory();
    const tools = await mcp.tools();
    const create = byName(tools, "mcp_memory_create_entities");
    const stop = new AbortController();
    const first = callTool(create, entity("first"));
    const second = callTool(create, entity("second"), { signal: stop.signal });
    stop.abort(new Error("user pressed stop"));
    await expect(second).rejects.toMatchObject({ kind: "Cancelled" });
    await first;
    const third = await callTool(create, entity("third"));
    expect(textOf(third)).toContain("third");
    const names = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { name: string }).name);
    expect(names).toEqual(["first", "third"]);
  });
});

describe("a before_tool_call hook that finishes out of order", () => {
  const writes = (names: string[]) =>
    new ScriptedModel([
      {
        toolCalls: names.map((name, i) => ({
          name: "mcp_memory_create_entities",
          id: `w${i}`,
          arguments: entity(name),
        })),
      },
      { text: "stored" },
    ]);

  /** Holds the first call's hook until the last call's hook has run, so the first is cleared last. */
  function lateFirst(last: string, onFirst: (cancel: (reason: string) => void) => void): AnyHook {
    let release = () => {};
    const lastSeen = new Promise<void>((resolve) => {
      release = resolve;
    });
    return defineHook({
      event: "before_tool_call",
      handler: async (ctx) => {
        if (ctx.toolCall.id === "w0") {
          await lastSeen;
          onFirst((reason) => ctx.cancel(reason));
        }
        if (ctx.toolCall.id === last) release();
      },
    });
  }

  async function storedNames(file: string): Promise<string[]> {
    return (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { name: string }).name);
  }

  it("still lets the server's writes land in the model's order", async () => {
    const { mcp, file } = await memory();
    const tools = await mcp.tools();
    const hooks = [lateFirst("w2", () => {})];
    const result = await new Harness({ model: writes(["ada", "grace", "linus"]), tools, hooks }).run({
      prompt: "remember three people",
    });
    expect(result.stopReason).toBe("completed");
    expect(result.messages.filter((m) => m.role === "tool" && m.isError)).toEqual([]);
    expect(await storedNames(file)).toEqual(["ada", "grace", "linus"]);
  });

  it("does not hold the later writes when it denies the first one", async () => {
    const { mcp, file } = await memory();
    const tools = await mcp.tools();
    const hooks = [lateFirst("w2", (cancel) => cancel("not this one"))];
    const result = await new Harness({ model: writes(["ada", "grace", "linus"]), tools, hooks }).run({
      prompt: "remember three people",
    });
    expect(result.stopReason).toBe("completed");
    const denied = result.messages.filter((m) => m.role === "tool" && m.isError);
    expect(denied.map((m) => (m.role === "tool" ? m.errorKind : undefined))).toEqual(["Denied"]);
    expect(await storedNames(file)).toEqual(["grace", "linus"]);
  });
});
