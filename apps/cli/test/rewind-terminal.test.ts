import { execFileSync } from "node:child_process";
import { lstat, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, queueTurns, runCli, userTexts } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

// /undo in a real terminal: a regretted rm -rf undone (the user's uncommitted file with it), the
// conversation put back, a rewind refused over the user's later edit, and `bridle sessions rewind`.
const terminal = new TmuxCli("bridle-rewind");
let dir: string;
let repo: string;
let env: Record<string, string>;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-tty-rewind-"));
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
  // Never committed: only the checkpoint has it once it is deleted.
  await writeFile(join(repo, "draft.txt"), "my unfinished draft\n");
  env = {
    OPENAI_API_KEY: "test-key",
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
  };
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

const read = (path: string) => readFile(join(repo, path), "utf8");

describe("rewind on a terminal", () => {
  it("/undo restores files and conversation, refuses over a later edit, and sessions rewind finishes it", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "rm -rf notes.txt draft.txt && echo new > made.txt" })] },
      { text: "Cleaned up." },
    ]);
    const url = openaiResponsesFormat.baseUrl(server.url);
    terminal.start(["--provider", "openai", "--model", "m", "--base-url", url, "--cwd", repo, "--yes"], env);
    await terminal.waitFor(/› $/m);
    terminal.keys("clean up everything", "Enter");
    await terminal.waitFor(/Cleaned up\.[\s\S]*› $/m);
    await expect(lstat(join(repo, "draft.txt"))).rejects.toThrow();

    terminal.keys("/undo", "Enter");
    const undone = await terminal.waitFor(
      /now on (\S+) \(the conversation as it was before turn 1\)\n(?:\S+ )?› $/m,
    );
    expect(undone).toContain("rewound to the start of turn 1: 3 files restored");
    expect(await read("notes.txt")).toBe("remember the milk\n");
    expect(await read("draft.txt")).toBe("my unfinished draft\n");
    await expect(lstat(join(repo, "made.txt"))).rejects.toThrow();
    const fork = /now on (\S+) \(the conversation/.exec(undone)?.[1] as string;

    // The next turn continues the fork: the undone prompt is no longer in what the model is sent.
    queueTurns(server, [
      { toolCalls: [call("c2", "bash", { command: "echo 'buy eggs' >> notes.txt" })] },
      { text: "Added eggs." },
    ]);
    terminal.keys("add eggs", "Enter");
    await terminal.waitFor(/Added eggs\.[\s\S]*› $/m);
    const sent = userTexts(server.requests.at(-1)?.body);
    expect(sent.some((text) => text.includes("add eggs"))).toBe(true);
    expect(sent.some((text) => text.includes("clean up everything"))).toBe(false);

    // The person edits the file after the agent did: /undo refuses, names it, and changes nothing.
    await writeFile(join(repo, "notes.txt"), "remember the milk\nbuy eggs\nand bread (mine)\n");
    terminal.keys("/undo", "Enter");
    const refused = await terminal.waitFor(/rewind refused[\s\S]*› $/m);
    expect(refused).toContain("notes.txt: changed since the agent's last change to it");
    expect(await read("notes.txt")).toBe("remember the milk\nbuy eggs\nand bread (mine)\n");
    terminal.keys("/exit", "Enter");
    await terminal.waitFor(/session: \S+/);

    // With the person's edit taken back, the same rewind from the command line.
    await writeFile(join(repo, "notes.txt"), "remember the milk\nbuy eggs\n");
    const listed = await runCli(["sessions", "rewind", fork, "--cwd", repo], { cwd: dir, env });
    expect(listed.stdout).toMatch(/^ {2}1 {2}add eggs {2}\(1 file changed\)$/m);
    const rewound = await runCli(["sessions", "rewind", fork, "--to", "1", "--cwd", repo], { cwd: dir, env });
    expect(rewound.stderr).toBe("");
    expect(rewound.code).toBe(0);
    expect(rewound.stdout).toContain("rewound to the start of turn 1: 1 file restored\n  notes.txt\n");
    expect(rewound.stdout).toMatch(/continue with: bridle --resume \S+/);
    expect(await read("notes.txt")).toBe("remember the milk\n");
    expect(await read("draft.txt")).toBe("my unfinished draft\n");

    const unknown = await runCli(["sessions", "rewind", fork, "--to", "9", "--cwd", repo], { cwd: dir, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no checkpoint for turn 9: turns 1 to 1 have one");
  });
});
