// Workspace subagent definitions (.bridle/agents) ask for trust; only the commands that run the agent read
// them. Without a terminal the ask becomes a warning, which is what these runs look for.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeOpenAI, runCli } from "./cli-harness.js";

const UNTRUSTED_AGENTS = /untrusted workspace config .*\.bridle\/agents/;

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let env: NodeJS.ProcessEnv;
let server: FakeProviderServer;

beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-agent-files-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, ".bridle", "agents"), { recursive: true });
  await writeFile(
    join(repo, ".bridle", "agents", "reviewer.md"),
    "---\ndescription: Reviews a change\ntools: read_file\n---\nYou review code.\n",
  );
  env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" };
  server = await fakeOpenAI([{ text: "ok" }]);
});
afterAll(async () => {
  await server.close();
  await cleanup();
});

describe("workspace agent definitions", () => {
  it.each([
    ["tools list", ["tools", "list"]],
    ["sessions list", ["sessions", "list"]],
    ["policy check", ["policy", "check", "ls"]],
  ])("are not read by %s: no trust question, no warning", async (_name, command) => {
    const run = await runCli([...command, "--cwd", repo], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(UNTRUSTED_AGENTS);
    expect(run.stderr).not.toMatch(/agents/);
  });

  it("tools list says the workspace's definitions were not read", async () => {
    const run = await runCli(["tools", "list", "--cwd", repo], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("agent_spawn: the workspace's .bridle/agents are not read here");
  });

  it("are read by run, which says it ignores them untrusted", async () => {
    const run = await runCli(
      ["run", "hi", "--base-url", openaiResponsesFormat.baseUrl(server.url), "--cwd", repo],
      { cwd: dir, env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(UNTRUSTED_AGENTS);
  });
});
