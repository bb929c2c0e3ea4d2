import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyTool } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpServers } from "../src/index.js";
import {
  byName,
  callTool,
  FILESYSTEM_SERVER,
  processesMentioning,
  running,
  textOf,
  waitFor,
} from "./helpers.js";

// @modelcontextprotocol/server-filesystem, confined to a temp folder.

describe("server-filesystem over stdio", () => {
  let workspace: { dir: string; cleanup: () => Promise<void> };
  let mcp: McpServers;
  let tools: AnyTool[];
  beforeAll(async () => {
    workspace = await tempWorkspace("bridle-mcp-fs-");
    await writeFile(join(workspace.dir, "notes.txt"), "first line\nsecond line\n");
    mcp = new McpServers(
      JSON.stringify({
        mcpServers: {
          files: { command: process.execPath, args: [FILESYSTEM_SERVER, workspace.dir] },
        },
      }),
      // server-filesystem takes the client's roots over its command line: the workspace is the root.
      { workspaceFolder: workspace.dir },
    );
    tools = await mcp.tools();
  });
  afterAll(async () => {
    await mcp.close();
    await workspace.cleanup();
  });

  it("maps the server's hints: writes are destructive, reads are read-only", () => {
    expect(byName(tools, "mcp_files_read_text_file").annotations).toMatchObject({
      read_only: true,
      destructive: false,
    });
    expect(byName(tools, "mcp_files_write_file").annotations).toMatchObject({
      read_only: false,
      destructive: true,
    });
    // No resources capability, so no resource tools.
    expect(tools.map((tool) => tool.name)).not.toContain("mcp_list_resources");
  });

  it("reads, writes and edits real files", async () => {
    const read = await callTool(byName(tools, "mcp_files_read_text_file"), {
      path: join(workspace.dir, "notes.txt"),
      head: 1,
    });
    expect(textOf(read)).toBe("first line");

    const target = join(workspace.dir, "made-by-mcp.txt");
    await callTool(byName(tools, "mcp_files_write_file"), { path: target, content: "alpha beta" });
    await callTool(byName(tools, "mcp_files_edit_file"), {
      path: target,
      edits: [{ oldText: "beta", newText: "gamma" }],
    });
    expect(await readFile(target, "utf8")).toBe("alpha gamma");
  });

  it("surfaces the server's refusal of a path outside its folder as a failed result", async () => {
    const output = await callTool(byName(tools, "mcp_files_read_text_file"), { path: "/etc/hostname" });
    expect(output.isError).toBe(true);
    expect(textOf(output)).toMatch(/outside allowed directories|Access denied/i);
  });

  it("starts the server again after it was killed, and leaves no process after close", async () => {
    const pid = mcp.status()[0]?.pid as number;
    process.kill(pid, "SIGKILL");
    // The exit is noticed when the pipes close; a call made before that fails and the next one restarts.
    expect(await waitFor(() => mcp.status()[0]?.state === "crashed")).toBe(true);
    expect(running(pid)).toBe(false);
    const listed = await callTool(byName(tools, "mcp_files_list_directory"), { path: workspace.dir });
    expect(textOf(listed)).toContain("notes.txt");
    expect(mcp.status()[0]?.restarts).toBe(1);

    const live = mcp.status()[0]?.pid as number;
    await mcp.close();
    expect(running(live)).toBe(false);
    // The folder is on the server's command line: nothing running mentions it any more.
    expect(processesMentioning(workspace.dir)).toEqual([]);
  });
});
