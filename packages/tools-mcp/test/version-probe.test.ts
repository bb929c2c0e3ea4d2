// How a stdio server's protocol version is found: `server/discover` on the session's own process, with
// the handshake's whole time to answer, and a second process only for a server that stops at the question.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type McpCallDetails, McpServers } from "../src/index.js";
import { byName, callTool, running, TOY_SERVER, textOf, waitFor } from "./helpers.js";

const MODERN_SERVER = fileURLToPath(new URL("./fixtures/modern-server.mjs", import.meta.url));

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-mcp-probe-"));
});
afterEach(() => cleanup());

/** The pids the fixture wrote as each of its processes started. */
async function starts(file: string): Promise<number[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.split("\n").filter(Boolean).map(Number);
}

/** Connects, calls `tool`, closes; returns the negotiated version and the processes the server took. */
async function connectOnce(args: string[], tool: string, toolArgs: Record<string, unknown>) {
  const file = join(dir, "starts");
  // A node process on a loaded machine may take many seconds to start: the limit is that of a hang.
  const mcp = new McpServers(
    { mcpServers: { probed: { command: process.execPath, args: [...args, `--starts-file=${file}`] } } },
    { connectTimeoutMs: 60_000 },
  );
  let version: string | undefined;
  let text: string;
  try {
    const output = await callTool(byName(await mcp.tools(), tool), toolArgs);
    text = textOf(output);
    version = (output.details as McpCallDetails | undefined)?.mcp?.protocolVersion;
  } finally {
    await mcp.close();
  }
  const pids = await starts(file);
  // Every process the connection took has stopped once close() returned.
  expect(await waitFor(() => pids.every((pid) => !running(pid)))).toBe(true);
  return { version, text, pids };
}

describe("the version probe on stdio", () => {
  it("a 2025 server answers server/discover with an error and initialize follows on the same process", async () => {
    const { version, text, pids } = await connectOnce([TOY_SERVER], "mcp_probed_echo_text", { text: "one" });
    expect(text).toBe("one");
    expect(version).toBe("2025-11-25");
    expect(pids).toHaveLength(1);
  });

  it("a 2026-07-28 server is spoken to in 2026-07-28 on its one process", async () => {
    const { version, pids } = await connectOnce([MODERN_SERVER], "mcp_probed_echo", { text: "x" });
    expect(version).toBe("2026-07-28");
    expect(pids).toHaveLength(1);
  });

  it("a server that exits at any request before initialize is started again and spoken to in 2025", async () => {
    const { version, text, pids } = await connectOnce(
      [TOY_SERVER, "--strict-start"],
      "mcp_probed_echo_text",
      {
        text: "again",
      },
    );
    expect(text).toBe("again");
    expect(version).toBe("2025-11-25");
    // The first process stopped at the question; the second one serves the session.
    expect(pids).toHaveLength(2);
  });

  it("a 2026-07-28-only server that takes 7 s to start is not taken for a 2025 server", async () => {
    // It refuses 2025 openings: taken for a 2025 server, it could not be connected at all.
    const { version, pids } = await connectOnce(
      [MODERN_SERVER, "--legacy=reject", "--start-delay-ms=7000"],
      "mcp_probed_echo",
      { text: "late" },
    );
    expect(version).toBe("2026-07-28");
    expect(pids).toHaveLength(1);
  }, 90_000);

  it("a 2025 server that takes 10 s to start is connected on its one process", async () => {
    const { version, pids } = await connectOnce(
      [TOY_SERVER, "--init-delay-ms=10000"],
      "mcp_probed_echo_text",
      { text: "slow" },
    );
    expect(version).toBe("2025-11-25");
    expect(pids).toHaveLength(1);
  }, 90_000);
});
