// What an MCP server asks of the person running bridle (a form, a page to open, a completion from the model)
// is asked in the terminal, and refused and said when nobody is there: a small wire-level server drives it.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli, toolOutputsSent } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const ASKER = fileURLToPath(new URL("./fixtures/asking-mcp-server.mjs", import.meta.url));
const terminal = new TmuxCli("bridle-mcp-ask");
let dir: string;
let repo: string;
let config: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

const waitFor = (pattern: RegExp) => terminal.waitFor(pattern);
const env = () => ({
  OPENAI_API_KEY: "test-key",
  XDG_DATA_HOME: join(dir, "data"),
  XDG_CONFIG_HOME: join(dir, "config"),
});
const base = (url: string) => [
  "--provider",
  "openai",
  "--model",
  "m",
  "--base-url",
  openaiResponsesFormat.baseUrl(url),
  "--cwd",
  repo,
  "--mcp",
  config,
  // These runs call the server's tools in their first turn: its tools must be there before it.
  "--mcp-startup",
  "wait",
];

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-mcp-ask-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
  config = join(dir, "mcp.json");
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { asker: { command: process.execPath, args: [ASKER] } } }),
  );
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

describe("an MCP server's questions in the interactive CLI", () => {
  it("asks a form field by field (defaults filled in), shows a URL, and asks before sampling", async () => {
    server = await fakeOpenAI([
      {
        toolCalls: [
          call("c1", "mcp_asker_ask_name", {}),
          call("c2", "mcp_asker_open_page", {}),
          call("c3", "mcp_asker_summarize", {}),
        ],
      },
      // The sampling request reaches the model between the two turns.
      { text: "Buy milk." },
      { text: "All three answered." },
    ]);
    terminal.start(base(server.url), env());
    await waitFor(/› $/m);
    terminal.keys("ask me things", "Enter");
    await waitFor(/MCP server "asker" asks: What is your name\?/);
    await waitFor(/\[a\]nswer \/ \[d\]ecline \/ \[c\]ancel: $/m);
    terminal.keys("a", "Enter");
    await waitFor(/Name \(required\): $/m);
    terminal.keys("Enter");
    // A required field left empty is asked again.
    await waitFor(/an answer is required/);
    terminal.keys("Ada", "Enter");
    await waitFor(/color 1=red, 2=green, 3=blue \[default "blue"\]: $/m);
    terminal.keys("Enter");
    await waitFor(/age \(optional\): $/m);
    terminal.keys("old", "Enter");
    await waitFor(/an integer is needed/);
    terminal.keys("36", "Enter");

    const page = await waitFor(
      /asks you to open a page: https:\/\/consent\.example\.test\/approve\?session=42/,
    );
    // The server's escape sequences are shown escaped, never sent to the terminal.
    expect(page).toContain("Approve the \\x1b[31mconsent\\x1b[0m page");
    await waitFor(/\[a\]ccept \(open it yourself\) \/ \[d\]ecline \/ \[c\]ancel: /);
    terminal.keys("d", "Enter");

    await waitFor(/asks the model \(1 message\(s\), up to 60 tokens\): "Summarize: remember the milk"/);
    terminal.keys("y", "Enter");
    await waitFor(/All three answered\./);

    const outputs = toolOutputsSent(server).join("\n");
    expect(outputs).toContain(
      JSON.stringify({ action: "accept", content: { name: "Ada", age: 36, color: "blue" } }),
    );
    expect(outputs).toContain(JSON.stringify({ action: "decline" }));
    expect(outputs).toContain("Buy milk.");
    // The sampling request went to the session's model with the server's message.
    expect(JSON.stringify(server.requests[1]?.body)).toContain("Summarize: remember the milk");
  });
});

describe("an MCP server's question when the turn is stopped", () => {
  it("is withdrawn on Ctrl-C, and the session takes the next prompt", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "mcp_asker_ask_name", {})] },
      { text: "Still here." },
    ]);
    terminal.start(base(server.url), env());
    await waitFor(/› $/m);
    terminal.keys("ask me things", "Enter");
    await waitFor(/\[a\]nswer \/ \[d\]ecline \/ \[c\]ancel: $/m);
    terminal.keys("C-c");
    await waitFor(/\(turn stopped\)/);
    await waitFor(/the question of MCP server "asker" was withdrawn/);
    await waitFor(/› $/m);
    terminal.keys("are you there?", "Enter");
    await waitFor(/Still here\./);
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("are you there?");
  });
});

describe("an MCP server's questions with nobody at a terminal", () => {
  it("declines elicitation and refuses sampling at once, and says so", async () => {
    server = await fakeOpenAI([
      {
        toolCalls: [
          call("c1", "mcp_asker_ask_name", {}),
          call("c2", "mcp_asker_open_page", {}),
          call("c3", "mcp_asker_summarize", {}),
        ],
      },
      { text: "Nobody answered." },
    ]);
    const run = await runCli(["run", ...base(server.url), "ask me things"], { cwd: repo, env: env() });
    expect(run.stderr).toContain(
      'MCP server "asker" asked for input ("What is your name?"); declined: nobody at a terminal to answer',
    );
    expect(run.stderr).toMatch(
      /asked to open https:\/\/consent\.example\.test\/approve\?session=42 .*declined/,
    );
    expect(run.stderr).toContain(
      "asked the model for a completion; refused: nobody at a terminal to approve it",
    );
    expect(run.code).toBe(0);
    const outputs = toolOutputsSent(server).join("\n");
    expect(outputs.match(/\{"action":"decline"\}/g)).toHaveLength(2);
    expect(outputs).toContain("sampling refused");
    // Only the two turns reached the model: the refused sampling never did.
    expect(server.requests).toHaveLength(2);
  });
});

describe("an MCP server's questions in a one-shot run with --yes", () => {
  it("lets sampling through to the model but still declines a form, saying why", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "mcp_asker_ask_name", {}), call("c2", "mcp_asker_summarize", {})] },
      { text: "Milk." },
      { text: "Done." },
    ]);
    const run = await runCli(["run", "--yes", ...base(server.url), "ask me things"], {
      cwd: repo,
      env: env(),
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("declined: --yes approves calls but cannot answer for you");
    const outputs = toolOutputsSent(server).join("\n");
    expect(outputs).toContain(JSON.stringify({ action: "decline" }));
    expect(outputs).toContain("Milk.");
    expect(JSON.stringify(server.requests[1]?.body)).toContain("Summarize: remember the milk");
  });
});

describe("MCP prompts as slash commands", () => {
  it("lists them, refuses a call missing an argument, and runs one as the turn", async () => {
    server = await fakeOpenAI([{ text: "Hello, Ada!" }]);
    terminal.start(base(server.url), env());
    await waitFor(/› $/m);
    terminal.keys("/prompts", "Enter");
    await waitFor(/\/mcp__asker__greet who=… \[tone=…\] {2}Greet someone/);
    terminal.keys("/mcp__asker__greet", "Enter");
    await waitFor(/missing who; usage: \/mcp__asker__greet who=… \[tone=…\]/);
    terminal.keys("/mcp__asker__nope", "Enter");
    await waitFor(/no MCP prompt \/mcp__asker__nope; \/prompts lists them/);
    expect(server.requests).toHaveLength(0);
    terminal.keys('/mcp__asker__greet Ada tone="very warm"', "Enter");
    await waitFor(/Hello, Ada!/);
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]?.body)).toContain("Say hello to Ada in a very warm tone.");
  });
});

describe("MCP servers start in the background", () => {
  it("the first request leaves before a slow server is up, and the run does not wait for it", async () => {
    // A server that takes 60 s to start: with the default startup the run needs none of it.
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          slow: { command: "sh", args: ["-c", `sleep 60; exec "${process.execPath}" "${ASKER}"`] },
        },
      }),
    );
    server = await fakeOpenAI([{ text: "Nothing to ask." }]);
    const run = await runCli(["run", "say something", ...base(server.url).slice(0, -2)], {
      cwd: dir,
      env: env(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Nothing to ask.");
    const tools = (server.requests[0]?.body as { tools?: { name?: string }[] } | undefined)?.tools ?? [];
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.filter((tool) => tool.name?.startsWith("mcp_"))).toEqual([]);
  });
});
