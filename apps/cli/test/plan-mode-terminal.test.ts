// Plan mode, the mode key and the ask-the-user tool as a person meets them: the built CLI in a real terminal
// (tmux) against the loopback fake OpenAI server, and `bridle run` with no terminal at all.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli, toolOutputsSent } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const terminal = new TmuxCli("bridle-plan");
let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-plan-tty-"));
  await writeFile(join(dir, "notes.txt"), "hello\n");
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

const args = (url: string, ...more: string[]) => [
  "--provider",
  "openai",
  "--model",
  "m",
  "--profile",
  "generic",
  "--edit-format",
  "replace",
  "--no-coding",
  "--sandbox",
  "off",
  "--base-url",
  openaiResponsesFormat.baseUrl(url),
  "--cwd",
  dir,
  ...more,
];
const env = () => ({
  OPENAI_API_KEY: "k",
  XDG_DATA_HOME: join(dir, "data"),
  XDG_CONFIG_HOME: join(dir, "config"),
});

const askStore = call("q1", "request_user_input", {
  questions: [
    {
      id: "store",
      header: "Store",
      question: "Which store should it use?",
      options: [
        { label: "Postgres", description: "a server" },
        { label: "SQLite", description: "one file" },
      ],
    },
  ],
});

describe("plan mode at the terminal", () => {
  it("refuses a write while planning, takes the plan with a key, and then lets the write run", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("w1", "write_file", { path: "out.txt", content: "early\n" })] },
      { toolCalls: [call("p1", "exit_plan_mode", { plan: "1. Write out.txt with the greeting." })] },
      { toolCalls: [call("w2", "write_file", { path: "out.txt", content: "planned\n" })] },
      { text: "Wrote out.txt." },
    ]);
    terminal.start(["--plan", ...args(server.url)], env());
    await terminal.waitFor(/^plan › $/m);
    terminal.keys("write out.txt", "Enter");
    await terminal.waitFor(
      /1\. Write out\.txt with the greeting\.[\s\S]*\[Plan\] Accept this plan and switch to workspace mode\?/,
    );
    const asked = await terminal.waitFor(/Answer \(a number, ↑\/↓, or type; Enter\): $/m);
    expect(asked).toMatch(/1\) Yes — switch to workspace mode and carry it out/);
    expect(asked).toMatch(/3\) Other: type your own answer/);
    // The write the model tried while planning was refused, not written.
    expect(existsSync(join(dir, "out.txt"))).toBe(false);
    terminal.keys("1", "Enter");
    await terminal.waitFor(/Wrote out\.txt\./);
    await terminal.waitFor(/^workspace › $/m);
    expect(await readFile(join(dir, "out.txt"), "utf8")).toBe("planned\n");
    const sent = JSON.stringify(server.requests.map((request) => request.body));
    expect(sent).toContain("write_file is not available in plan mode");
    expect(sent).toContain("The user accepted the plan");
  }, 120_000);

  it("cycles the modes with Shift-Tab and shows each in the prompt; /mode sets one by name", async () => {
    server = await fakeOpenAI([]);
    terminal.start(args(server.url), env());
    await terminal.waitFor(/^workspace › $/m);
    terminal.keys("BTab");
    await terminal.waitFor(/^ask › $/m);
    terminal.keys("BTab");
    await terminal.waitFor(/^plan › $/m);
    terminal.keys("BTab");
    await terminal.waitFor(/^workspace › $/m);
    terminal.keys("/mode full-access", "Enter");
    await terminal.waitFor(/mode full-access is not available in a session started in workspace mode/);
    terminal.keys("/mode plan", "Enter");
    await terminal.waitFor(/^mode: plan\n.*plan › $/m);
  }, 120_000);

  it("answers the ask-the-user tool with the arrow keys", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("s1", "tool_search", { query: "request_user_input" })] },
      { toolCalls: [askStore] },
      { text: "Using SQLite." },
    ]);
    terminal.start(args(server.url), env());
    await terminal.waitFor(/^workspace › $/m);
    terminal.keys("set up storage", "Enter");
    await terminal.waitFor(/\[Store\] Which store should it use\?[\s\S]*Answer \(.*\): $/m);
    terminal.keys("Down");
    terminal.keys("Down");
    await terminal.waitFor(/Answer \(.*\): 2$/m);
    terminal.keys("Enter");
    await terminal.waitFor(/Using SQLite\./);
    expect(toolOutputsSent(server)).toContain(
      JSON.stringify({ answers: { store: { answers: ["SQLite"] } } }),
    );
  }, 120_000);
});

describe("bridle run without a terminal", () => {
  it("refuses the ask-the-user tool and tells the model to go on its own judgement", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("s1", "tool_search", { query: "request_user_input" })] },
      { toolCalls: [askStore] },
      { text: "Assumed SQLite." },
    ]);
    const run = await runCli(["run", "set up storage", ...args(server.url)], { cwd: dir, env: env() });
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Assumed SQLite.");
    const [output] = toolOutputsSent(server).filter((text) => text.includes("nobody can answer"));
    expect(output).toMatch(/nobody can answer questions here .*proceed on your own judgement/);
  }, 120_000);
});
