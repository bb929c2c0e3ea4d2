// The keys of the interactive prompt: one Ctrl-C at an idle prompt asks, a second in a row leaves; a slash
// command typed while the agent works is a command, run when the turn ends, never a steering message.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { call, fakeOpenAI } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const terminal = new TmuxCli("bridle-keys");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-tty-keys-"));
  repo = join(dir, "repo");
  await mkdir(repo);
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

function start(s: FakeProviderServer): void {
  terminal.start(
    [
      "--provider",
      "openai",
      "--model",
      "m",
      "--base-url",
      openaiResponsesFormat.baseUrl(s.url),
      "--no-coding",
      "--permission-mode",
      "full-access",
      "--cwd",
      repo,
    ],
    { OPENAI_API_KEY: "k", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
  );
}

it("one Ctrl-C at the prompt asks and keeps the session; two in a row leave", async () => {
  server = await fakeOpenAI([{ text: "Still here." }]);
  start(server);
  await terminal.waitFor(/› $/m);
  terminal.keys("half a thought");
  terminal.keys("C-c");
  await terminal.waitFor(/\(press Ctrl-C again to exit, or type \/exit\)\n(?:\S+ )?› $/m);
  // The typed line was cleared: what follows is sent alone.
  terminal.keys("are you there?", "Enter");
  await terminal.waitFor(/Still here\./);
  expect(JSON.stringify(server.requests[0]?.body)).not.toContain("half a thought");
  // Idle again: the turn's last line, then the prompt.
  await terminal.waitFor(/^done: .*\n(?:\S+ )?› $/m);
  terminal.keys("C-c");
  await terminal.waitFor(
    /^done: .*\n(?:\S+ )?› \n\(press Ctrl-C again to exit, or type \/exit\)\n(?:\S+ )?› $/m,
  );
  terminal.keys("C-c");
  await terminal.waitFor(/session: \S+/);
});

it("a slash command typed during a turn runs when the turn ends instead of reaching the model", async () => {
  server = await fakeOpenAI([
    // The turn waits on a file the test writes once the command was typed.
    { toolCalls: [call("c1", "bash", { command: "while [ ! -f go ]; do sleep 0.1; done; echo went" })] },
    { text: "Done waiting." },
  ]);
  start(server);
  await terminal.waitFor(/› $/m);
  terminal.keys("wait for go", "Enter");
  for (let i = 0; i < 200 && server.requests.length < 1; i++) await new Promise((r) => setTimeout(r, 50));
  terminal.keys("/cost", "Enter");
  await terminal.waitFor(/\(\/cost runs when this turn ends\)/);
  await writeFile(join(repo, "go"), "");
  await terminal.waitFor(/Done waiting\.[\s\S]*› \/cost\nsession so far: 2 model requests/);
  expect(server.requests).toHaveLength(2);
  expect(JSON.stringify(server.requests.map((request) => request.body))).not.toContain("/cost");
  expect(terminal.screen()).not.toContain("queued (steer)");
});

it("Ctrl-D at the prompt leaves as /exit does, naming the session", async () => {
  server = await fakeOpenAI([{ text: "Noted." }]);
  start(server);
  await terminal.waitFor(/› $/m);
  terminal.keys("remember this", "Enter");
  await terminal.waitFor(/^done: .*\n(?:\S+ )?› $/m);
  terminal.keys("C-d");
  await terminal.waitFor(/^session: \S+$/m);
});
