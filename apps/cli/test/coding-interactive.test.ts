import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

// The coding overlay in the interactive mode, in a real terminal: the plan as it changes, then each
// turn's handoff.
const terminal = new TmuxCli("bridle-coding");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-tty-coding-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
  await writeFile(join(repo, "notes.txt"), "remember the milk\n");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      cwd: repo,
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
      stdio: "ignore",
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

describe("interactive bridle with the coding overlay", () => {
  it("shows the plan as it changes and the handoff after the turn", async () => {
    server = await fakeOpenAI([
      // The plan tool waits behind tool_search until the model asks for it.
      { toolCalls: [call("c0", "tool_search", { query: "update_plan" })] },
      {
        toolCalls: [
          call("c1", "update_plan", {
            plan: [
              { step: "add the eggs", status: "in_progress" },
              { step: "check the list", status: "pending" },
            ],
          }),
        ],
      },
      { toolCalls: [call("c2", "bash", { command: "echo 'buy eggs' >> notes.txt" })] },
      {
        toolCalls: [
          call("c3", "update_plan", {
            plan: [
              { step: "add the eggs", status: "completed" },
              { step: "check the list", status: "completed" },
            ],
          }),
        ],
      },
      { text: "Added eggs to the list." },
    ]);
    const url = openaiResponsesFormat.baseUrl(server.url);
    terminal.start(["--provider", "openai", "--model", "m", "--base-url", url, "--cwd", repo], {
      OPENAI_API_KEY: "test-key",
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CONFIG_HOME: join(dir, "config"),
    });
    await terminal.waitFor(/› $/m);
    terminal.keys("add eggs to my notes", "Enter");
    const screen = await terminal.waitFor(/handoff: UNVERIFIED[\s\S]*› $/m);
    expect(screen).toContain("plan:\n  [>] add the eggs\n  [ ] check the list");
    expect(screen).toContain("plan:\n  [x] add the eggs\n  [x] check the list");
    expect(screen).toContain("Added eggs to the list.");
    expect(screen).toMatch(/files changed by the agent: 1\n\s+notes\.txt \+1 -0/);
    expect(screen).toContain("echo 'buy eggs' >> notes.txt → 0");
    expect(screen.indexOf("[x] check the list")).toBeLessThan(screen.indexOf("handoff:"));
    expect(await readFile(join(repo, "notes.txt"), "utf8")).toBe("remember the milk\nbuy eggs\n");
    terminal.keys("/exit", "Enter");
    await terminal.waitFor(/session: \S+/);
  });
});
