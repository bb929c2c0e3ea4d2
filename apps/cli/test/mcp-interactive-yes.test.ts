// --yes in the interactive session approves every call, but a person is at the terminal: an MCP server's
// form is asked of them rather than declined (one-shot `run --yes` still declines: mcp-interactive.test.ts).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, toolOutputsSent } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const ASKER = fileURLToPath(new URL("./fixtures/asking-mcp-server.mjs", import.meta.url));
const terminal = new TmuxCli("bridle-mcp-yes");
let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-mcp-yes-"));
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

describe("an MCP server's form in the interactive session with --yes", () => {
  it("is asked of the person at the terminal; sampling runs unasked, as --yes says", async () => {
    const repo = join(dir, "repo");
    await mkdir(repo, { recursive: true });
    const config = join(dir, "mcp.json");
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { asker: { command: process.execPath, args: [ASKER] } } }),
    );
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "mcp_asker_ask_name", {}), call("c2", "mcp_asker_summarize", {})] },
      { text: "Buy milk." },
      { text: "Both answered." },
    ]);
    const flags = [
      "--yes",
      "--provider",
      "openai",
      "--model",
      "m",
      "--cwd",
      repo,
      "--mcp",
      config,
      "--mcp-startup",
      "wait",
    ];
    terminal.start([...flags, "--base-url", openaiResponsesFormat.baseUrl(server.url)], {
      OPENAI_API_KEY: "test-key",
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CONFIG_HOME: join(dir, "config"),
    });
    await terminal.waitFor(/› $/m);
    terminal.keys("ask me things", "Enter");
    await terminal.waitFor(/MCP server "asker" asks: What is your name\?/);
    await terminal.waitFor(/\[a\]nswer \/ \[d\]ecline \/ \[c\]ancel: $/m);
    terminal.keys("a", "Enter");
    await terminal.waitFor(/Name \(required\): $/m);
    terminal.keys("Ada", "Enter");
    await terminal.waitFor(/color 1=red, 2=green, 3=blue \[default "blue"\]: $/m);
    terminal.keys("Enter");
    await terminal.waitFor(/age \(optional\): $/m);
    terminal.keys("36", "Enter");
    const screen = await terminal.waitFor(/Both answered\./);
    expect(screen).not.toMatch(/declined: --yes/);
    // No question about the sampling request: --yes allowed it.
    expect(screen).not.toMatch(/asks the model/);

    const outputs = toolOutputsSent(server).join("\n");
    expect(outputs).toContain(
      JSON.stringify({ action: "accept", content: { name: "Ada", age: 36, color: "blue" } }),
    );
    expect(outputs).toContain("Buy milk.");
  });
});
