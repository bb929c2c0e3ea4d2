import { execFileSync, spawn } from "node:child_process";
import { lstat, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, PROTOCOL_VERSION, type SessionUpdate } from "@agentclientprotocol/sdk";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, call, fakeOpenAI, NODE_FLAGS, queueTurns, runCli } from "./cli-harness.js";

// Every front door checkpoints its turns, so `bridle sessions rewind` works for a session made by
// `bridle run` and by an ACP editor exactly as for an interactive one (rewind-terminal.test.ts).

let dir: string;
let repo: string;
let env: Record<string, string>;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-rewind-doors-"));
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
  // Never committed: only the checkpoint has it once a command deletes it.
  await writeFile(join(repo, "draft.txt"), "my unfinished draft\n");
  env = {
    OPENAI_API_KEY: "test-key",
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
  };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

const read = (path: string) => readFile(join(repo, path), "utf8");
const gone = async (path: string) => (await lstat(join(repo, path)).catch(() => undefined)) === undefined;

function runArgs(s: FakeProviderServer, ...more: string[]): string[] {
  const url = openaiResponsesFormat.baseUrl(s.url);
  return ["run", ...more, "--provider", "openai", "--model", "m", "--base-url", url, "--cwd", repo, "--yes"];
}

describe("bridle run checkpoints its turn", () => {
  it("two runs of one session rewind to either start, and a later edit of the user's stops it", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "rm draft.txt && echo 'buy eggs' >> notes.txt" })] },
      { text: "Tidied." },
    ]);
    const first = await runCli(runArgs(server, "tidy up"), { cwd: dir, env });
    expect(first.code, first.stderr).toBe(0);
    const id = /^session: (\S+)$/m.exec(first.stderr)?.[1] as string;
    expect(await gone("draft.txt")).toBe(true);

    queueTurns(server, [
      {
        toolCalls: [call("c2", "bash", { command: "echo 'call mum' > todo.txt && echo bread >> notes.txt" })],
      },
      { text: "Noted." },
    ]);
    const second = await runCli(runArgs(server, "note more", "--resume", id), { cwd: dir, env });
    expect(second.code, second.stderr).toBe(0);
    expect(await read("notes.txt")).toBe("remember the milk\nbuy eggs\nbread\n");

    // Listed as the CLI numbers turns: one per prompt, from 1.
    const listed = await runCli(["sessions", "rewind", id, "--cwd", repo], { cwd: dir, env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe("  1  tidy up  (2 files changed)\n  2  note more  (2 files changed)\n");

    // The person changes a file the second run wrote: the rewind refuses, names it, and touches nothing.
    await writeFile(join(repo, "todo.txt"), "call mum\nand dad (mine)\n");
    const refused = await runCli(["sessions", "rewind", id, "--to", "1", "--cwd", repo], { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "rewind refused: nothing was changed. These files stop it:\n  todo.txt: changed since the agent's last change to it\n",
    );
    expect(await read("notes.txt")).toBe("remember the milk\nbuy eggs\nbread\n");
    expect(await gone("draft.txt")).toBe(true);

    // With the person's change taken back, both runs are undone: the uncommitted draft comes back too.
    await writeFile(join(repo, "todo.txt"), "call mum\n");
    const rewound = await runCli(["sessions", "rewind", id, "--to", "1", "--cwd", repo], { cwd: dir, env });
    expect(rewound.stderr).toBe("");
    expect(rewound.code).toBe(0);
    expect(rewound.stdout).toContain(
      "rewound to the start of turn 1: 3 files restored\n  draft.txt\n  notes.txt\n  todo.txt (removed)\n",
    );
    expect(await read("notes.txt")).toBe("remember the milk\n");
    expect(await read("draft.txt")).toBe("my unfinished draft\n");
    expect(await gone("todo.txt")).toBe(true);

    // The conversation continues from before turn 1: the fork has no run in it yet.
    const fork = /continue with: bridle --resume (\S+)/.exec(rewound.stdout)?.[1] as string;
    const forkTurns = await runCli(["sessions", "rewind", fork, "--cwd", repo], { cwd: dir, env });
    expect(forkTurns.code).toBe(1);
    expect(forkTurns.stderr).toContain("has no checkpoints");
    // Six processes of the built CLI in a row: room for a loaded machine (a bound on nothing asserted).
  }, 600_000);
});

describe("an ACP session checkpoints its turns", () => {
  it("a turn an editor ran shows its command's diffs and is rewound with bridle sessions rewind", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "rm notes.txt && echo made > made.txt" })] },
      { text: "Done." },
    ]);
    const child = spawn(
      process.execPath,
      [
        ...NODE_FLAGS,
        CLI,
        "acp",
        "--provider",
        "openai",
        "--model",
        "m",
        "--permission-mode",
        "full-access",
        "--base-url",
        openaiResponsesFormat.baseUrl(server.url),
      ],
      { cwd: dir, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: "pipe" },
    );
    let stderr = "";
    const updates: SessionUpdate[] = [];
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const connection = client({ name: "test-editor" })
      .onNotification("session/update", ({ params }) => {
        updates.push(params.update);
      })
      .connect(
        ndJsonStream(
          Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
          Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
        ),
      );
    try {
      await connection.agent.request("initialize", {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: {},
      });
      const { sessionId } = await connection.agent.request("session/new", { cwd: repo, mcpServers: [] });
      const answer = await connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "replace the notes" }],
      });
      expect(answer.stopReason, stderr).toBe("end_turn");
      expect(await gone("notes.txt")).toBe(true);
      // The editor saw the command's changes as diffs, as it sees an edit's.
      const ended = updates.find(
        (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "c1" && u.status === "completed",
      );
      expect(ended && "content" in ended ? ended.content : undefined).toEqual(
        expect.arrayContaining([
          { type: "diff", path: join(repo, "made.txt"), oldText: null, newText: "made" },
          { type: "diff", path: join(repo, "notes.txt"), oldText: "remember the milk", newText: "" },
        ]),
      );

      const listed = await runCli(["sessions", "rewind", sessionId, "--cwd", repo], { cwd: dir, env });
      expect(listed.stdout).toBe("  1  replace the notes  (2 files changed)\n");
      const rewound = await runCli(["sessions", "rewind", sessionId, "--to", "1", "--cwd", repo], {
        cwd: dir,
        env,
      });
      expect(rewound.code, rewound.stderr).toBe(0);
      expect(rewound.stdout).toContain("rewound to the start of turn 1: 2 files restored\n");
      expect(await read("notes.txt")).toBe("remember the milk\n");
      expect(await gone("made.txt")).toBe(true);
      expect(stderr).not.toContain("rewind:");
    } finally {
      connection.close();
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    }
  });
});
