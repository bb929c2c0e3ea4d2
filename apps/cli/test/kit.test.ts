// The kit around the core tools, end to end through the built CLI against the fake OpenAI server:
// compaction, workspace instructions, subagents and background tasks, memory.

import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, queueTurns, runCli, toolOutputsSent } from "./cli-harness.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-kit-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, "src"), { recursive: true });
  env = {
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    OPENAI_API_KEY: "test-key",
  };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

function args(s: FakeProviderServer, cwd = repo): string[] {
  return [
    "--provider",
    "openai",
    "--model",
    "test-model",
    "--base-url",
    openaiResponsesFormat.baseUrl(s.url),
    "--cwd",
    cwd,
    "--edit-format",
    "replace",
    "--no-coding",
    "--sandbox",
    "off",
    "--json",
  ];
}

type Line = Record<string, unknown> & { type: string };
const lines = (stdout: string): Line[] =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Line);

interface SentRequest {
  instructions?: string;
  input?: unknown[];
}
/** The JSON body of request `i` (negative counts from the end), or an empty object. */
function requestBody<T>(s: FakeProviderServer, i: number): T {
  return (s.requests.at(i)?.body ?? {}) as T;
}
const body = (s: FakeProviderServer, i: number) => requestBody<SentRequest>(s, i);

/** The output the last request carried for one call. */
function outputOf(s: FakeProviderServer, callId: string): string {
  const input =
    requestBody<{ input?: { type?: string; call_id?: string; output?: unknown }[] }>(s, -1).input ?? [];
  const item = input.find((i) => i.type === "function_call_output" && i.call_id === callId);
  return typeof item?.output === "string" ? item.output : JSON.stringify(item?.output ?? "");
}

// A prompt that carries pasted text: large enough that its summary is smaller (compaction never applies a
// summary that leaves the context as large as it was).
const PASTED = Array.from({ length: 400 }, (_, i) => `note ${i + 1}: some notes about the project`).join(
  "\n",
);

describe("compaction", () => {
  it("a session past the context window compacts and finishes", async () => {
    // Three files of ~6,000 tokens each; the third read's response reports 35,000 input tokens, past
    // 80% of the 40,000-token window, so the harness compacts before the next request.
    for (const name of ["a", "b", "c"])
      await writeFile(
        join(repo, `${name}.txt`),
        `${name.toUpperCase()}-CONTENT filler words here\n`.repeat(700),
      );
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "read_file", { path: "a.txt" })] },
      { toolCalls: [call("c2", "read_file", { path: "b.txt" })] },
      { toolCalls: [call("c3", "read_file", { path: "c.txt" })], usage: { inputTokens: 35_000 } },
      { text: "SUMMARY: read a.txt and b.txt, both filler." },
      { text: "All three files are filler." },
    ]);
    const run = await runCli(["run", "read the files", ...args(server), "--context-window", "40000"], {
      cwd: dir,
      env,
    });
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code, run.stderr).toBe(0);
    const events = lines(run.stdout);
    const compaction = events.find((e) => e.type === "compaction");
    expect(compaction).toMatchObject({ reason: "threshold", replacedCount: 5 });
    expect(compaction?.tokensAfter as number).toBeLessThan(compaction?.tokensBefore as number);
    expect(events.at(-1)).toMatchObject({ type: "run_completed", finalText: "All three files are filler." });
    // The summary request carried the history as text, without tools; the next request the summary and
    // the last read, not the first two.
    expect(server.requests).toHaveLength(5);
    expect(JSON.stringify(body(server, 3))).toContain("A-CONTENT");
    const after = JSON.stringify(body(server, 4).input);
    expect(after).toContain("SUMMARY: read a.txt and b.txt");
    expect(after).toContain("C-CONTENT");
    expect(after).not.toContain("A-CONTENT");
  });

  it("the threshold comes from the model's own context window (gpt-5-mini: 400,000 tokens)", async () => {
    await writeFile(join(repo, "notes.txt"), "some notes\n");
    const known = (s: FakeProviderServer) => [
      ...args(s).map((a) => (a === "test-model" ? "gpt-5-mini" : a)),
      "--profile",
      "generic",
    ];
    // 300,000 tokens: past 80% of the 128,000 assumed for an unknown model, not of gpt-5-mini's window.
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "read_file", { path: "notes.txt" })], usage: { inputTokens: 300_000 } },
      { text: "No compaction needed." },
    ]);
    const below = await runCli(["run", "read", ...known(server)], { cwd: dir, env });
    expect(below.code, below.stderr).toBe(0);
    expect(lines(below.stdout).some((e) => e.type === "compaction")).toBe(false);
    // 330,000 tokens: past 80% of 400,000.
    queueTurns(server, [
      { toolCalls: [call("c2", "read_file", { path: "notes.txt" })], usage: { inputTokens: 330_000 } },
      { text: "SUMMARY: notes read." },
      { text: "Compacted first." },
    ]);
    const above = await runCli(["run", `read, and keep in mind:\n${PASTED}`, ...known(server)], {
      cwd: dir,
      env,
    });
    expect(above.code, above.stderr).toBe(0);
    expect(lines(above.stdout).filter((e) => e.type === "compaction")).toMatchObject([
      { reason: "threshold" },
    ]);
  });

  it("an overflow error from the provider compacts and retries once; a second overflow ends the run", async () => {
    const overflow = {
      kind: "json" as const,
      status: 400,
      body: openaiResponsesFormat.errorBody(
        "context_overflow",
        "This model's maximum context length is exceeded",
      ),
    };
    await writeFile(join(repo, "notes.txt"), "some notes\n");
    server = await fakeOpenAI([{ toolCalls: [call("c1", "read_file", { path: "notes.txt" })] }]);
    server.enqueue(overflow);
    queueTurns(server, [{ text: "SUMMARY: the notes were read." }, { text: "Done after the retry." }]);
    const run = await runCli(["run", `read the notes:\n${PASTED}`, ...args(server)], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const events = lines(run.stdout);
    expect(events.filter((e) => e.type === "compaction")).toMatchObject([
      { reason: "overflow", replacedCount: 1 },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "run_completed", finalText: "Done after the retry." });
    expect(server.requests).toHaveLength(4);

    await server.close();
    server = await fakeOpenAI([{ toolCalls: [call("c1", "read_file", { path: "notes.txt" })] }]);
    server.enqueue(overflow);
    queueTurns(server, [{ text: "SUMMARY: the notes were read." }]);
    server.enqueue(overflow);
    const twice = await runCli(["run", `read the notes:\n${PASTED}`, ...args(server)], { cwd: dir, env });
    expect(twice.code, twice.stderr).toBe(1);
    const failed = lines(twice.stdout).at(-1);
    expect(failed).toMatchObject({ type: "run_failed", stopReason: "provider_error" });
    expect(server.requests).toHaveLength(4);
  });

  it("shows the compaction to a person: what was summarised and the tokens before and after", async () => {
    await writeFile(join(repo, "notes.txt"), "some notes\n");
    server = await fakeOpenAI([{ toolCalls: [call("c1", "read_file", { path: "notes.txt" })] }]);
    server.enqueue({
      kind: "json",
      status: 400,
      body: openaiResponsesFormat.errorBody("context_overflow", "context length exceeded"),
    });
    queueTurns(server, [{ text: "The user asked to read the notes." }, { text: "Done." }]);
    const run = await runCli(
      ["run", `read the notes:\n${PASTED}`, ...args(server).filter((a) => a !== "--json")],
      {
        cwd: dir,
        env,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /compacted after the provider's context overflow: 1 messages summarised \(\d+ characters\) · tokens ~\d+ → ~\d+\n {2}summary: The user asked to read the notes\./,
    );
  });
});

describe("workspace instructions", () => {
  beforeEach(async () => {
    await mkdir(join(repo, ".git"));
    await mkdir(join(repo, ".github"));
    await writeFile(join(repo, "AGENTS.md"), "Root rule: ROOT-MARKER\n");
    await writeFile(join(repo, ".github", "copilot-instructions.md"), "COPILOT-MARKER\n");
    await writeFile(join(repo, "src", "AGENTS.md"), "Sub rule: SUB-MARKER\n");
    await writeFile(join(repo, "src", "CLAUDE.md"), "CLAUDE-MARKER\n");
  });

  it("AGENTS.md text from the repository root down to the working folder reaches the request", async () => {
    server = await fakeOpenAI([{ text: "ok" }, { text: "ok" }]);
    const run = await runCli(["run", "hi", ...args(server, join(repo, "src"))], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const system = body(server, 0).instructions ?? "";
    expect(system).toContain("ROOT-MARKER");
    expect(system).toContain("SUB-MARKER");
    expect(system.indexOf("ROOT-MARKER")).toBeLessThan(system.indexOf("SUB-MARKER"));
    // One file a folder, AGENTS.md preferred.
    expect(system).not.toContain("CLAUDE-MARKER");
    expect(system).not.toContain("COPILOT-MARKER");
    expect(run.stderr).toContain("bridle: instructions from ../AGENTS.md, AGENTS.md");

    const off = await runCli(["run", "hi", ...args(server, join(repo, "src")), "--no-instructions"], {
      cwd: dir,
      env,
    });
    expect(off.code, off.stderr).toBe(0);
    expect(body(server, 1).instructions).not.toContain("ROOT-MARKER");
  });

  it("uses CLAUDE.md or copilot-instructions.md where there is no AGENTS.md; a link out of the repository is skipped", async () => {
    const { rm } = await import("node:fs/promises");
    await rm(join(repo, "AGENTS.md"));
    await rm(join(repo, "src", "AGENTS.md"));
    await writeFile(join(dir, "secret.txt"), "SECRET-OUTSIDE\n");
    await symlink(join(dir, "secret.txt"), join(repo, "CLAUDE.md"));
    server = await fakeOpenAI([{ text: "ok" }]);
    const run = await runCli(["run", "hi", ...args(server, join(repo, "src"))], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const system = body(server, 0).instructions ?? "";
    expect(system).not.toContain("SECRET-OUTSIDE");
    expect(run.stderr).toMatch(/skipping .*CLAUDE\.md: it links outside the repository/);
    expect(system).toContain("COPILOT-MARKER");
    expect(system).toContain("CLAUDE-MARKER");
  });
});

describe("subagents", () => {
  it("a subagent's work appears nested in --json under the call that started it", async () => {
    await writeFile(join(repo, "src", "count.txt"), "one\ntwo\nthree\n");
    server = await fakeOpenAI([
      // agent_spawn waits behind the search tool: found first, then called.
      { toolCalls: [call("t1", "tool_search", { query: "agent_spawn" })] },
      {
        toolCalls: [
          call("s1", "agent_spawn", { agent_id: "helper", task: "count the lines of src/count.txt" }),
        ],
      },
      { toolCalls: [call("r1", "read_file", { path: "src/count.txt" })] },
      { text: "It has 3 lines." },
      { text: "The helper counted 3 lines." },
    ]);
    const run = await runCli(["run", "count", ...args(server)], { cwd: dir, env });
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code, run.stderr).toBe(0);
    const events = lines(run.stdout);
    const parentRun = events[0]?.runId;
    const nested = events
      .filter((e) => e.type === "tool_progress" && (e.data as { type?: string })?.type === "subagent_event")
      .map((e) => ({ parent: e, child: (e.data as { event: Line }).event }));
    expect(nested.map((n) => n.child.type)).toEqual(
      expect.arrayContaining(["run_started", "tool_call_requested", "tool_call_completed", "run_completed"]),
    );
    for (const { parent, child } of nested) {
      expect(parent.runId).toBe(parentRun);
      expect(parent.toolCallId).toBe("s1");
      expect(child.parentRunId).toBe(parentRun);
      expect(child.parentToolCallId).toBe("s1");
      expect(child.agentName).toBe("helper");
    }
    // At the default depth the child is not offered the agent tools.
    const childTools = (requestBody<{ tools?: { name: string }[] }>(server, 2).tools ?? []).map(
      (t) => t.name,
    );
    expect(childTools).toContain("read_file");
    expect(childTools).not.toContain("agent_spawn");
    const read = nested.find((n) => n.child.type === "tool_call_requested")?.child;
    expect((read?.toolCall as { name: string } | undefined)?.name).toBe("read_file");
    // The spawn's result gives the parent the child's answer.
    expect(toolOutputsSent(server).join("")).toContain("It has 3 lines.");
  });

  it("subagentDepth 2 offers a subagent agent_spawn; its own subagent is not offered it", async () => {
    await mkdir(join(dir, "config", "bridle"), { recursive: true });
    await writeFile(
      join(dir, "config", "bridle", "bridle.config.json"),
      JSON.stringify({ subagentDepth: 2 }),
    );
    server = await fakeOpenAI([
      { toolCalls: [call("t1", "tool_search", { query: "agent_spawn" })] },
      { toolCalls: [call("s1", "agent_spawn", { agent_id: "helper", task: "delegate further" })] },
      { toolCalls: [call("s2", "agent_spawn", { agent_id: "helper", task: "the actual work" })] },
      { text: "Grandchild done." },
      { text: "Child done." },
      { text: "Parent done." },
    ]);
    const run = await runCli(["run", "go", ...args(server)], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const offered = (i: number) =>
      (requestBody<{ tools?: { name: string }[] }>(server as FakeProviderServer, i).tools ?? []).map(
        (t) => t.name,
      );
    // The parent's request after the search, then the child's (offered it), then the grandchild's.
    expect(offered(0)).not.toContain("agent_spawn");
    expect(offered(1)).toContain("agent_spawn");
    expect(offered(2)).toContain("agent_spawn");
    expect(offered(3)).not.toContain("agent_spawn");
    // The grandchild's events are nested twice: inside the child's, inside the parent's call.
    const twice = lines(run.stdout).filter((e) => {
      const child = (e.data as { event?: Line } | undefined)?.event;
      return (
        e.type === "tool_progress" &&
        (child?.data as { type?: string } | undefined)?.type === "subagent_event"
      );
    });
    expect(twice.length).toBeGreaterThan(0);
    expect(lines(run.stdout).at(-1)).toMatchObject({ type: "run_completed", finalText: "Parent done." });
  });

  it("a subagent's work is shown to a person indented under the call that started it", async () => {
    await writeFile(join(repo, "src", "count.txt"), "one\ntwo\nthree\n");
    server = await fakeOpenAI([
      { toolCalls: [call("t1", "tool_search", { query: "agent_spawn" })] },
      { toolCalls: [call("s1", "agent_spawn", { agent_id: "helper", task: "count the lines" })] },
      { toolCalls: [call("r1", "read_file", { path: "src/count.txt" })] },
      { text: "It has 3 lines." },
      { text: "The helper counted 3 lines." },
    ]);
    const run = await runCli(["run", "count", ...args(server).filter((a) => a !== "--json")], {
      cwd: dir,
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    const shown = run.stderr.split("\n");
    const spawn = shown.findIndex((line) => line.startsWith("→ agent_spawn"));
    const nested = shown.indexOf("  ↳ [helper] → read_file src/count.txt");
    const done = shown.findIndex((line) => line.startsWith("✓ agent_spawn"));
    expect(spawn).toBeGreaterThanOrEqual(0);
    expect(nested).toBeGreaterThan(spawn);
    expect(done).toBeGreaterThan(nested);
    expect(shown).toContain("  ↳ [helper] ✓ read_file");
    expect(run.stdout).toContain("The helper counted 3 lines.");
  });

  it("workspace agent definitions apply only once the workspace is trusted", async () => {
    await mkdir(join(repo, ".bridle", "agents"), { recursive: true });
    await writeFile(
      join(repo, ".bridle", "agents", "reviewer.md"),
      "---\ndescription: Reviews a change and lists problems\ntools: read_file\n---\nYou review code.\n",
    );
    const spawnDescription = (s: FakeProviderServer, i: number) => {
      const tools = requestBody<{ tools?: { name: string; description: string }[] }>(s, i).tools ?? [];
      return tools.find((t) => t.name === "agent_spawn")?.description ?? "";
    };
    // agent_spawn (its description lists the subagents) is offered once the search tool finds it.
    const search = { toolCalls: [call("t1", "tool_search", { query: "agent_spawn" })] };
    server = await fakeOpenAI([search, { text: "ok" }, search, { text: "ok" }]);
    const untrusted = await runCli(["run", "hi", ...args(server)], { cwd: dir, env });
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(untrusted.stderr).toMatch(
      /ignoring agents from the untrusted workspace config .*\.bridle\/agents/,
    );
    expect(spawnDescription(server, 1)).not.toContain("reviewer");
    expect(spawnDescription(server, 1)).toContain("helper");
    const trusted = await runCli(["run", "hi", ...args(server), "--trust"], { cwd: dir, env });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(spawnDescription(server, 3)).toContain("reviewer: Reviews a change and lists problems");
  });

  it("a background task is stopped when the run ends, makes no request after, and is reported", async () => {
    const flag = join(repo, "child-started");
    server = await fakeOpenAI([
      { toolCalls: [call("t1", "tool_search", { query: "agent_spawn" })] },
      {
        toolCalls: [
          call("s1", "agent_spawn", { agent_id: "helper", task: "work for ever", timeout_seconds: 0 }),
          // The parent's next request waits until the child's first one has reached the server.
          call("w1", "bash", { command: `while [ ! -e ${flag} ]; do sleep 0.05; done; echo started` }),
        ],
      },
    ]);
    // The child's request: headers, then nothing until the client goes away.
    server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "never" }), hangAfter: 0 });
    queueTurns(server, [{ text: "Left the helper working." }]);
    const running = runCli(["run", "start a helper", ...args(server), "--yes"], { cwd: dir, env });
    let exited = false;
    void running.then(() => {
      exited = true;
    });
    while (server.requests.length < 3 && !exited) await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(flag, "");
    const run = await running;
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code, run.stderr).toBe(0);
    const events = lines(run.stdout);
    const fact = events.find((e) => e.type === "fact" && e.kind === "agents.tasks");
    expect(fact?.data).toMatchObject({
      stopped: [{ agent_key: "helper-1", status: "cancelled" }],
      leftRunning: [],
    });
    // Reported before the run's end, and the child's request was cut off, not answered later.
    expect(events.indexOf(fact as Line)).toBeLessThan(events.length - 1);
    expect(server.requests).toHaveLength(4);
    expect(server.requests[2]?.aborted).toBe(true);
  });
});

describe("memory", () => {
  it("memory written in one run is found in the next, in this workspace only", async () => {
    server = await fakeOpenAI([
      // The memory tools wait behind the search tool: found first, then called.
      { toolCalls: [call("s1", "tool_search", { query: "write_memory" })] },
      {
        toolCalls: [
          call("m1", "write_memory", { key: "conventions", content: "Indent with tabs. MEMORY-MARKER" }),
        ],
      },
      { text: "Saved." },
      // memory_search waits behind the search tool: found first, then called.
      { toolCalls: [call("s2", "tool_search", { query: "memory_search" })] },
      { toolCalls: [call("m2", "memory_search", { query: "tabs" })] },
      { text: "Found it." },
    ]);
    const first = await runCli(["run", "remember: tabs", ...args(server), "--yes"], { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(["run", "what do you know about tabs?", ...args(server)], { cwd: dir, env });
    expect(second.code, second.stderr).toBe(0);
    expect(toolOutputsSent(server).join("")).toContain("conventions");
    // Kept under the user's data folder, per workspace, not in the repository.
    const workspaces = await readdir(join(dir, "data", "bridle", "workspaces"));
    expect(workspaces).toHaveLength(1);
    const note = await readFile(
      join(dir, "data", "bridle", "workspaces", workspaces[0] as string, "memory", "conventions.md"),
      "utf8",
    );
    expect(note).toContain("MEMORY-MARKER");
    expect(await readdir(repo)).not.toContain(".bridle");

    const other = join(dir, "other");
    await mkdir(other);
    queueTurns(server, [
      { toolCalls: [call("s3", "tool_search", { query: "memory_search" })] },
      { toolCalls: [call("m3", "memory_search", { query: "tabs" })] },
      { text: "Nothing." },
    ]);
    const elsewhere = await runCli(["run", "tabs?", ...args(server, other)], { cwd: dir, env });
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(toolOutputsSent(server).join("")).not.toContain("conventions");
  });
});

describe("fetch and spilled output", () => {
  let site: Server;
  let origin: string;
  // 3,000 lines of 50 characters: past the 100,000-character spill limit, its end marked.
  const page = `${Array.from({ length: 3_000 }, (_, i) => `line ${String(i + 1).padStart(5, "0")} ${"-".repeat(38)}`).join("\n")}\nEND-OF-PAGE\n`;
  beforeEach(async () => {
    site = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(page);
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => site.close(() => resolve()));
  });

  it("no fetch tool unless hosts are configured; a spilled fetch is read back by the shell in the sandbox and by read_file", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("f0", "fetch", { url: `${origin}/` })] },
      { text: "no fetch" },
    ]);
    const without = await runCli(["run", "fetch it", ...args(server)], { cwd: dir, env });
    expect(without.code, without.stderr).toBe(0);
    const sentTools = (i: number) =>
      (requestBody<{ tools?: { name: string }[] }>(server as FakeProviderServer, i).tools ?? []).map(
        (t) => t.name,
      );
    expect(sentTools(0)).not.toContain("fetch");
    // Nor waiting behind the search tool.
    const searchable = (i: number) =>
      requestBody<{ tools?: { name: string; description: string }[] }>(
        server as FakeProviderServer,
        i,
      ).tools?.find((t) => t.name === "tool_search")?.description ?? "";
    expect(searchable(0)).not.toMatch(/\bfetch\b/);

    const host = origin.replace("http://", "");
    await mkdir(join(dir, "config", "bridle"), { recursive: true });
    await writeFile(
      join(dir, "config", "bridle", "bridle.config.json"),
      JSON.stringify({ fetchHosts: [host] }),
    );
    const spills = join(dir, "data", "bridle", "workspaces", "*", "tool-output", "*", "*.txt");
    queueTurns(server, [
      // fetch waits behind the search tool: found first, then called.
      { toolCalls: [call("t1", "tool_search", { query: "fetch" })] },
      { toolCalls: [call("f1", "fetch", { url: `${origin}/` })] },
      { toolCalls: [call("b1", "bash", { command: `tail -c 12 ${spills}` })] },
      { text: "Read it back." },
    ]);
    const run = await runCli(
      ["run", "fetch it", ...args(server).filter((a) => a !== "off" && a !== "--sandbox"), "--yes"],
      {
        cwd: dir,
        env,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(sentTools(2)).not.toContain("fetch");
    expect(searchable(2)).toMatch(/\bfetch\b/);
    expect(sentTools(3)).toContain("fetch");
    const events = lines(run.stdout);
    const fetched = events.find(
      (e) => e.type === "tool_call_completed" && (e.result as { toolName: string }).toolName === "fetch",
    );
    const spilled =
      (fetched?.result as { details?: { spilled?: { path: string } } } | undefined)?.details?.spilled?.path ??
      "";
    expect(spilled).toMatch(/tool-output/);
    // The shell's own output (not the spill preview, which shows the tail too) holds the file's end.
    expect(outputOf(server, "b1")).toContain("END-OF-PAGE");
    expect(outputOf(server, "b1")).toContain('"stdout":"END-OF-PAGE\\n"');
    // Outside the repository: the workspace holds no spill.
    expect(await readdir(repo)).not.toContain(".bridle");

    // A later run reads the spilled file with read_file, past its first page.
    queueTurns(server, [
      { toolCalls: [call("r1", "read_file", { path: spilled, offset: 2_990 })] },
      { text: "Read the end." },
    ]);
    const again = await runCli(["run", "read the end", ...args(server)], { cwd: dir, env });
    expect(again.code, again.stderr).toBe(0);
    expect(outputOf(server, "r1")).toMatch(/\n\d+\tEND-OF-PAGE/);
  });
});
