// The "still running" ticker of a long tool call keeps quiet while the person answers a question that call
// asked (an MCP server's form): a line written there would land in the middle of what they type.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { call, fakeOpenAI, toolOutputsSent } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const ASKER = fileURLToPath(new URL("./fixtures/asking-mcp-server.mjs", import.meta.url));
const terminal = new TmuxCli("bridle-ticker-ask");
let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-ticker-ask-"));
  await mkdir(join(dir, "repo"));
  await writeFile(
    join(dir, "mcp.json"),
    JSON.stringify({ mcpServers: { asker: { command: process.execPath, args: [ASKER] } } }),
  );
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

it("writes nothing under an MCP form while it waits for the answer", async () => {
  server = await fakeOpenAI([
    { toolCalls: [call("c1", "mcp_asker_ask_name", {})] },
    { text: "Thanks, Ada." },
  ]);
  terminal.start(
    [
      "--model",
      "m",
      "--base-url",
      openaiResponsesFormat.baseUrl(server.url),
      "--cwd",
      join(dir, "repo"),
      "--mcp",
      join(dir, "mcp.json"),
      "--mcp-startup",
      "wait",
    ],
    { OPENAI_API_KEY: "test-key", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
  );
  await terminal.waitFor(/› $/m);
  terminal.keys("ask me", "Enter");
  await terminal.waitFor(/\[a\]nswer \/ \[d\]ecline \/ \[c\]ancel: $/m);
  terminal.keys("a", "Enter");
  await terminal.waitFor(/Name \(required\): $/m);
  terminal.keys("Ad");
  // The ticker says a call is still running every 5 s: two of its beats pass while the form waits.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  const screen = terminal.screen();
  expect(screen).not.toContain("still running");
  expect(screen).toMatch(/Name \(required\): Ad\n*$/);
  terminal.keys("a", "Enter");
  await terminal.waitFor(/color 1=red, 2=green, 3=blue \[default "blue"\]: $/m);
  terminal.keys("Enter");
  await terminal.waitFor(/age \(optional\): $/m);
  terminal.keys("Enter");
  await terminal.waitFor(/Thanks, Ada\./);
  expect(toolOutputsSent(server).join("\n")).toContain('"name":"Ada"');
});
