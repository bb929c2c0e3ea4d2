// On a terminal: a bare --resume lists this workspace's sessions and resumes the one picked, showing the
// conversation so far; a new interactive session is titled by its first prompt.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { fakeOpenAI, runCli, userTexts } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const terminal = new TmuxCli("bridle-picker");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: Record<string, string>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-tty-picker-"));
  repo = join(dir, "repo");
  await mkdir(repo);
  env = { OPENAI_API_KEY: "k", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") };
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

const model = (s: FakeProviderServer) => [
  "--provider",
  "openai",
  "--model",
  "m",
  "--base-url",
  openaiResponsesFormat.baseUrl(s.url),
  "--no-coding",
  "--cwd",
  repo,
];

it("a bare --resume picks from this workspace's sessions; a new session takes its first prompt as title", async () => {
  server = await fakeOpenAI([
    { text: "About the parser." },
    { text: "About the lexer." },
    { text: "Lexer, continued." },
    { text: "Fresh start." },
  ]);
  for (const prompt of ["explain the parser", "explain the lexer"]) {
    const run = await runCli(["run", prompt, ...model(server)], { cwd: repo, env });
    expect(run.code).toBe(0);
  }

  terminal.start([...model(server), "--resume"], env);
  const listed = await terminal.waitFor(/resume which \(1-2\)\? $/m);
  // Latest first.
  expect(listed.indexOf("explain the lexer")).toBeLessThan(listed.indexOf("explain the parser"));
  expect(listed).toMatch(/^ {2}1 {2}\S+ \S+ {2}explain the lexer {2}\S+$/m);
  terminal.keys("2", "Enter");
  await terminal.waitFor(/› $/m);
  const resumed = terminal.screen();
  expect(resumed).toContain("(2 messages)");
  expect(resumed).toContain("user: explain the parser");
  expect(resumed).toContain("assistant: About the parser.");
  terminal.keys("and the lexer?", "Enter");
  await terminal.waitFor(/Lexer, continued\./);
  expect(userTexts(server.requests[2]?.body)).toEqual(["explain the parser", "and the lexer?"]);
  terminal.keys("/exit", "Enter");
  await terminal.waitFor(/session: \S+/);
  terminal.kill();

  terminal.start(model(server), env);
  await terminal.waitFor(/› $/m);
  terminal.keys("start over on the tokenizer", "Enter");
  await terminal.waitFor(/Fresh start\./);
  terminal.keys("/exit", "Enter");
  const final = await terminal.waitFor(/session: \S+/);
  const id = /session: (\S+)/.exec(final)?.[1] as string;
  const list = await runCli(["sessions", "list", "--cwd", repo], { cwd: repo, env });
  expect(list.stdout.split("\n").find((line) => line.startsWith(id))).toMatch(/start over on the tokenizer$/);
});

it("Ctrl-C at the picker leaves without resuming anything", async () => {
  server = await fakeOpenAI([{ text: "Hi." }]);
  const first = await runCli(["run", "hello", ...model(server)], { cwd: repo, env });
  expect(first.code).toBe(0);
  terminal.start([...model(server), "--resume"], env);
  await terminal.waitFor(/resume which \(1-1\)\? $/m);
  terminal.keys("C-c");
  const screen = await terminal.waitFor(/nothing resumed/);
  expect(screen).not.toContain("›");
  expect(server.requests).toHaveLength(1);
});
