import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

// The approval prompt says why it asks: the command policy's verdict on one line above the keys, and a
// refusal tells the model what was refused and why.
const terminal = new TmuxCli("bridle-why");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-why-tty-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

describe("the approval prompt on a terminal", () => {
  it("shows the policy's reason above the keys, and the model hears it with the refusal", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("t1", "bash", { command: "touch made.txt" })] },
      { text: "Left it alone." },
    ]);
    terminal.start(
      [
        "--provider",
        "openai",
        "--model",
        "m",
        "--profile",
        "generic",
        "--no-coding",
        "--base-url",
        openaiResponsesFormat.baseUrl(server.url),
        "--cwd",
        repo,
        "--sandbox",
        "off",
      ],
      { OPENAI_API_KEY: "k", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
    );
    await terminal.waitFor(/› $/m);
    terminal.keys("make the file", "Enter");
    const asking = await terminal.waitFor(/Allow bash touch made\.txt\? \[y\]es \/ \[n\]o.*: $/m, 60_000);
    const lines = asking.split("\n");
    const at = lines.findIndex((line) => line.startsWith("Allow bash touch made.txt?"));
    expect(lines[at - 1]).toMatch(/^Why it asks: touch made\.txt: touch modifies files/);
    expect(lines[at - 1]?.length).toBeLessThanOrEqual("Why it asks: ".length + 161);
    terminal.keys("n");
    await terminal.waitFor(/Left it alone\./, 60_000);
    expect(existsSync(join(repo, "made.txt"))).toBe(false);
    const sent = JSON.stringify(server.requests.at(-1)?.body);
    expect(sent).toContain("the user refused (it asked because touch made.txt: touch modifies files");
  }, 180_000);
});
