import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { call, fakeOpenAI } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

// The kit in the interactive view, driven in a real terminal (tmux): a subagent's work nested under the
// call that started it, and /compact saying what it summarised and the tokens before and after.
const terminal = new TmuxCli("bridle-kit-test");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-kit-tty-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
  await writeFile(join(repo, "notes.txt"), "remember the milk\n");
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

it("shows a subagent nested under its call, and /compact with what it summarised and the tokens", async () => {
  server = await fakeOpenAI([
    // agent_spawn waits behind tool_search until the model asks for it.
    { toolCalls: [call("t1", "tool_search", { query: "agent_spawn" })] },
    { toolCalls: [call("s1", "agent_spawn", { agent_id: "helper", task: "read notes.txt" })] },
    { toolCalls: [call("r1", "read_file", { path: "notes.txt" })] },
    { text: "The notes say: remember the milk." },
    { text: "Your notes remind you of the milk." },
    { text: "You are welcome." },
    { text: "The user had a helper read notes.txt: remember the milk." },
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
      "--no-coding",
    ],
    { OPENAI_API_KEY: "test-key", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
  );
  await terminal.waitFor(/› $/m);
  terminal.keys("what do my notes say?", "Enter");
  const shown = await terminal.waitFor(/Your notes remind you of the milk\./);
  expect(shown).toMatch(
    /→ agent_spawn[^\n]*\n(?:.*\n)*? {2}↳ \[helper\] → read_file notes\.txt\n(?:.*\n)*? {2}↳ \[helper\] ✓ read_file/,
  );
  await terminal.waitFor(/› $/m);
  terminal.keys("thanks", "Enter");
  await terminal.waitFor(/You are welcome\./);
  await terminal.waitFor(/› $/m);
  terminal.keys("/compact", "Enter");
  const compacted = await terminal.waitFor(/compacted on request: .*/);
  const line =
    /compacted on request: (\d+) messages summarised \(\d+ characters\) · tokens ~(\d+) → ~(\d+)/.exec(
      compacted,
    );
  expect(Number(line?.[1])).toBe(6);
  expect(Number(line?.[3])).toBeLessThan(Number(line?.[2]));
  expect(compacted).toContain("summary: The user had a helper read notes.txt");
  terminal.keys("/exit", "Enter");
  await terminal.waitFor(/session: \S+/);
});
