// `bridle tools list` names exactly the tools a run offers the model: the kit's (memory, sessions, agents and
// tasks, fetch when configured) included, listed with no API key and no model asked.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeOpenAI, runCli } from "./cli-harness.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let env: NodeJS.ProcessEnv;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-tools-list-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
  // No API key: listing asks no model.
  env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

async function listed(extra: readonly string[] = [], which: "all" | "sent" = "all"): Promise<string[]> {
  const run = await runCli(["tools", "list", "--json", "--cwd", repo, ...extra], { cwd: dir, env });
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { name: string; deferred?: true }[])
    .filter((tool) => which === "all" || !tool.deferred)
    .map((tool) => tool.name);
}

const KIT_TOOLS = [
  "read_memory",
  "write_memory",
  "memory_search",
  "session_list",
  "session_history",
  "session_search",
  "agent_spawn",
  "agent_send",
  "agent_list",
  "task_output",
  "task_cancel",
  "task_list",
];

describe("bridle tools list", () => {
  it("lists the memory, session, agent and task tools with no API key, and no fetch unless configured", async () => {
    const names = await listed();
    for (const name of KIT_TOOLS) expect(names).toContain(name);
    expect(names).not.toContain("fetch");
    expect(new Set(names).size).toBe(names.length);
  });

  it("lists fetch when the user's config allows hosts", async () => {
    await mkdir(join(dir, "config", "bridle"), { recursive: true });
    await writeFile(
      join(dir, "config", "bridle", "bridle.config.json"),
      JSON.stringify({ fetchHosts: ["docs.example.com"] }),
    );
    expect(await listed()).toContain("fetch");
  });

  it("the human listing names the kit's tools too", async () => {
    const run = await runCli(["tools", "list", "--cwd", repo], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^agent_spawn \{agent_id/m);
    expect(run.stdout).toMatch(/^read_memory \{key\}/m);
  });

  it("names exactly the tools a run with the same settings sends the model", async () => {
    server = await fakeOpenAI([{ text: "ok" }]);
    const flags = ["--provider", "openai", "--model", "gpt-5-mini"];
    // The deferred tools are listed after the others, marked; the request carries the search tool instead.
    const names = await listed(flags, "sent");
    expect(names).toContain("tool_search");
    expect(await listed(flags)).toContain("session_search");
    expect(names).not.toContain("session_search");
    const run = await runCli(
      ["run", "hi", ...flags, "--base-url", openaiResponsesFormat.baseUrl(server.url), "--cwd", repo],
      { cwd: dir, env: { ...env, OPENAI_API_KEY: "k" } },
    );
    expect(run.code, run.stderr).toBe(0);
    const body = server.requests[0]?.body as { tools?: { name: string }[] } | undefined;
    const sent = body?.tools ?? [];
    expect(sent.length).toBeGreaterThan(0);
    expect(names).toEqual(sent.map((tool) => tool.name));
  });
});
