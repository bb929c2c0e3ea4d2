// Each config shape's tool filter, against a real server: the offered tool list is exactly what the filter
// allows, through discover() and through the background source alike.
import { beforeAll, describe, expect, it } from "vitest";
import { type McpConfigInput, McpServers, type McpWarning } from "../src/index.js";
import { TOY_SERVER } from "./helpers.js";

const toy = { command: process.execPath, args: [TOY_SERVER, "--tag=filters"] };
// opencode writes the command as one array, with `type: "local"`.
const opencodeToy = { type: "local", command: [process.execPath, TOY_SERVER, "--tag=filters"] };

/** The server's own tool names as Bridle offers them. */
const bridle = (...names: string[]) => names.map((name) => `mcp_toy_${name.replaceAll(".", "_")}`);

let everything: string[];
beforeAll(async () => {
  const mcp = new McpServers({ mcpServers: { toy } });
  try {
    everything = (await mcp.discover()).tools.map((tool) => tool.name);
  } finally {
    await mcp.close();
  }
  expect(everything).toContain("mcp_toy_echo_text");
  expect(everything.length).toBeGreaterThan(10);
});

interface Row {
  readonly shape: string;
  readonly config: McpConfigInput;
  /** The offered names, or a predicate over the unfiltered list. */
  readonly offered: readonly string[] | ((name: string) => boolean);
}

const rows: Row[] = [
  {
    shape: "Claude Code / Cursor mcpServers (no per-server filter exists): every tool",
    config: { mcpServers: { toy } },
    offered: () => true,
  },
  {
    shape: "Gemini includeTools: only those",
    config: { mcpServers: { toy: { ...toy, includeTools: ["echo.text", "pid"] } } } as McpConfigInput,
    offered: bridle("echo.text", "pid"),
  },
  {
    shape: "Gemini includeTools with arguments after the name",
    config: { mcpServers: { toy: { ...toy, includeTools: ["pid(anything)"] } } } as McpConfigInput,
    offered: bridle("pid"),
  },
  {
    shape: "Gemini excludeTools: all but those",
    config: { mcpServers: { toy: { ...toy, excludeTools: ["crash", "spawn_child"] } } } as McpConfigInput,
    offered: (name) => !bridle("crash", "spawn_child").includes(name),
  },
  {
    shape: "Gemini excludeTools wins over includeTools",
    config: {
      mcpServers: { toy: { ...toy, includeTools: ["echo.text", "pid"], excludeTools: ["pid"] } },
    } as McpConfigInput,
    offered: bridle("echo.text"),
  },
  {
    shape: "VS Code servers with the same keys",
    config: { servers: { toy: { type: "stdio", ...toy, includeTools: ["fail"] } } } as McpConfigInput,
    offered: bridle("fail"),
  },
  {
    shape: "Codex mcp_servers enabled_tools, then disabled_tools",
    config: {
      mcp_servers: { toy: { ...toy, enabled_tools: ["echo.text", "fail"], disabled_tools: ["fail"] } },
    },
    offered: bridle("echo.text"),
  },
  {
    shape: "Codex disabled_tools only",
    config: { mcp_servers: { toy: { ...toy, disabled_tools: ["echo.text"] } } },
    offered: (name) => name !== "mcp_toy_echo_text",
  },
  {
    shape: "Codex enabled = false: the server is not started",
    config: { mcp_servers: { toy: { ...toy, enabled: false } } },
    offered: [],
  },
  {
    shape: "opencode tools globs: the last match decides",
    config: { mcp: { toy: opencodeToy }, tools: { "toy_*": false, toy_pid: true, toy_echo_text: true } },
    offered: bridle("echo.text", "pid"),
  },
  {
    shape: "opencode tools globs that name other tools leave the server's alone",
    config: { mcp: { toy: opencodeToy }, tools: { write: false, "other_*": false } },
    offered: () => true,
  },
  {
    shape: "opencode enabled = false: the server is not started",
    config: { mcp: { toy: { ...opencodeToy, enabled: false } } },
    offered: [],
  },
];

function expected(row: Row): string[] {
  const offered = row.offered;
  return typeof offered === "function" ? everything.filter(offered) : [...offered].sort();
}

describe("tool filters of every config shape", () => {
  it.each(rows)("$shape (discover)", async (row) => {
    const mcp = new McpServers(row.config);
    try {
      const { tools, failures } = await mcp.discover();
      expect(failures).toEqual([]);
      expect(tools.map((tool) => tool.name)).toEqual(expected(row));
    } finally {
      await mcp.close();
    }
  });

  it.each(rows.filter((row) => row.shape.startsWith("Gemini") || row.shape.startsWith("opencode tools")))(
    "$shape (background)",
    async (row) => {
      const mcp = new McpServers(row.config);
      try {
        const source = mcp.background();
        await source.settled;
        expect(source.tools().map((tool) => tool.name)).toEqual(expected(row));
      } finally {
        await mcp.close();
      }
    },
  );

  it("a filter naming a tool the server does not offer is told once, naming the server and the tool", async () => {
    const warnings: McpWarning[] = [];
    const mcp = new McpServers(
      {
        mcpServers: { toy: { ...toy, includeTools: ["echo.text", "ecco"], excludeTools: ["nope"] } },
      } as McpConfigInput,
      { onWarning: (warning) => warnings.push(warning) },
    );
    try {
      const source = mcp.background();
      await source.settled;
      expect(source.tools().map((tool) => tool.name)).toEqual(bridle("echo.text"));
      expect(warnings).toEqual([
        {
          server: "toy",
          code: "tool_filter_unmatched",
          message: 'MCP server "toy" offers no tool named "ecco", "nope", which its tool filter names',
        },
      ]);
    } finally {
      await mcp.close();
    }
  });
});
