import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, toolOutputsSent } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

// The interactive mode driven the way a person drives it: in a real terminal (tmux), typing keys and
// reading the screen.
const terminal = new TmuxCli("bridle-test");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

const waitFor = (pattern: RegExp) => terminal.waitFor(pattern);

function start(args: string[]): void {
  terminal.start(args, {
    OPENAI_API_KEY: "test-key",
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
  });
}

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-tty-"));
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

describe("interactive bridle in a terminal", () => {
  it("takes a prompt, asks for approval, stops a turn on Ctrl-C, and resumes the session", async () => {
    server = await fakeOpenAI([
      { text: "Checking.", toolCalls: [call("c1", "bash", { command: "node -e 'console.log(6*7)'" })] },
      { text: "The answer is 42." },
    ]);
    // The third request hangs until the client goes away: that turn is stopped with Ctrl-C.
    server.enqueue({
      kind: "stream",
      events: openaiResponsesFormat.events({ text: "never finished" }),
      hangAfter: 2,
    });
    const base = [
      "--provider",
      "openai",
      "--model",
      "m",
      "--base-url",
      openaiResponsesFormat.baseUrl(server.url),
    ];
    // No sandbox: the strict policy is the boundary, so the interpreter asks.
    start([...base, "--cwd", repo, "--sandbox", "off"]);
    await waitFor(/› $/m);
    terminal.keys("compute six times seven", "Enter");
    await waitFor(/Allow bash node -e/);
    // One key answers an approval: no Enter.
    terminal.keys("y");
    await waitFor(/The answer is 42\./);
    expect(toolOutputsSent(server).join("\n")).toContain('"stdout":"42\\n"');

    await waitFor(/› $/m);
    terminal.keys("tell me more", "Enter");
    for (let i = 0; i < 200 && (server?.requests.length ?? 0) < 3; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(server.requests).toHaveLength(3);
    terminal.keys("C-c");
    await waitFor(/\(turn stopped\)/);
    await waitFor(/› $/m);
    terminal.keys("/exit", "Enter");
    const final = await waitFor(/session: \S+/);
    const id = /session: (\S+)/.exec(final)?.[1] as string;
    terminal.kill();

    server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "Welcome back." }) });
    start([...base, "--cwd", repo, "--resume", id]);
    await waitFor(/› $/m);
    terminal.keys("are you there?", "Enter");
    await waitFor(/Welcome back\./);
    const sent = JSON.stringify(server.requests.at(-1)?.body);
    expect(sent).toContain("compute six times seven");
    expect(sent).toContain("The answer is 42.");
    expect(sent).toContain("are you there?");
  });
});
