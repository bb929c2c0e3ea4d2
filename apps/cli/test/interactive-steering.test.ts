import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, queueTurns, userTexts } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

// Typing while the agent works, in a real terminal (tmux): Enter steers the run, Alt+Enter and /followup
// queue follow-ups, and the queue is shown as it changes.
const terminal = new TmuxCli("bridle-steer");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-steer-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

/** Where each kind of item sits in a request's input: the steering text must come after the tool output. */
function inputKinds(body: unknown): string[] {
  const input = (body as { input?: { type?: string; role?: string }[] }).input ?? [];
  return input.map((item) => item.type ?? item.role ?? "?");
}

describe("interactive steering in a terminal", () => {
  it("Enter steers the running turn after its tool call; Alt+Enter and /followup wait until it would finish", async () => {
    // The command runs until the test creates `go`, so the typing happens while the tool call is running.
    server = await fakeOpenAI([
      {
        toolCalls: [call("c1", "bash", { command: "while [ ! -f go ]; do sleep 0.1; done; echo released" })],
      },
      { text: "Switched to staging." },
      { text: "Changelog and tests written." },
    ]);
    terminal.start(
      [
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
        openaiResponsesFormat.baseUrl(server.url),
        "--cwd",
        repo,
        "--yes",
        "--no-coding",
        "--sandbox",
        "off",
      ],
      { OPENAI_API_KEY: "test-key", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
    );
    await terminal.waitFor(/› $/m);
    terminal.keys("migrate the database", "Enter");
    // The call shows while the model streams it (… ), then complete as it runs (→).
    await terminal.waitFor(/… bash while \[ ! -f go \]/);
    await terminal.waitFor(/→ bash/);

    terminal.keys("use the staging database", "Enter");
    await terminal.waitFor(/queued \(steer\): use the staging database/);
    terminal.keys("/followup write the changelog", "Enter");
    await terminal.waitFor(/queued \(follow-up\): write the changelog/);
    terminal.keys("and add tests");
    terminal.keys("M-Enter");
    const queued = await terminal.waitFor(/queued \(follow-up\): and add tests/);
    expect(queued).toMatch(
      /queue: \[steer\] use the staging database · \[follow-up\] write the changelog · \[follow-up\] and add tests/,
    );
    // Nothing reached the model yet: the tool call is still running.
    expect(server.requests).toHaveLength(1);

    await writeFile(join(repo, "go"), "");
    const screen = await terminal.waitFor(/Changelog and tests written\./);
    expect(screen).toMatch(/» delivered \(steer\): use the staging database/);
    expect(screen).toMatch(/» delivered \(follow-up\): write the changelog/);
    expect(screen).toMatch(/queue: empty/);

    // The second request: the tool's output, then the steering message; no follow-up yet.
    const second = server.requests[1]?.body;
    expect(inputKinds(second).slice(-2)).toEqual(["function_call_output", "user"]);
    expect(userTexts(second).at(-1)).toBe("use the staging database");
    expect(JSON.stringify(second)).not.toContain("write the changelog");
    // The third: both follow-ups, after the answer the run would have ended with.
    const third = server.requests[2]?.body;
    expect(userTexts(third).slice(-2)).toEqual(["write the changelog", "and add tests"]);
    expect(server.requests).toHaveLength(3);

    await terminal.waitFor(/› $/m);
    terminal.keys("/exit", "Enter");
    await terminal.waitFor(/session: \S+/);
  });

  it("a message typed into a turn stopped with Ctrl-C goes to the next turn, after its prompt", async () => {
    server = await fakeOpenAI([]);
    // The first request hangs: the model is still thinking when the message is typed and the turn stopped.
    server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "never" }), hangAfter: 1 });
    queueTurns(server, [{ text: "Using the staging database." }]);
    terminal.start(
      [
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
        openaiResponsesFormat.baseUrl(server.url),
        "--cwd",
        repo,
        "--no-coding",
      ],
      { OPENAI_API_KEY: "test-key", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
    );
    await terminal.waitFor(/› $/m);
    terminal.keys("migrate the database", "Enter");
    for (let i = 0; i < 200 && server.requests.length < 1; i++) await new Promise((r) => setTimeout(r, 50));
    terminal.keys("use the staging database", "Enter");
    await terminal.waitFor(/queued \(steer\): use the staging database/);
    terminal.keys("C-c");
    await terminal.waitFor(/\(turn stopped\)/);
    await terminal.waitFor(/› $/m);
    terminal.keys("go ahead", "Enter");
    await terminal.waitFor(/Using the staging database\./);
    expect(server.requests).toHaveLength(2);
    expect(userTexts(server.requests[1]?.body).slice(-2)).toEqual(["go ahead", "use the staging database"]);
  });
});
