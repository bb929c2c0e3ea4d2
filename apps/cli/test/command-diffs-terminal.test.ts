// On a terminal a shell command's changes are drawn as an edit's are, in colour: the built CLI in tmux,
// its screen read back with its colours.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { call, fakeOpenAI } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const ESC = "\u001b";

/** The foreground colour (an SGR code, "" for the default) in force where `text` starts on the screen. */
function foregroundAt(screen: string, text: string): string {
  const at = screen.indexOf(text);
  expect(at, `no ${text} on the screen`).toBeGreaterThanOrEqual(0);
  let colour = "";
  for (const chunk of screen.slice(0, at).split(`${ESC}[`).slice(1)) {
    const end = chunk.indexOf("m");
    if (end < 0) continue;
    for (const code of chunk.slice(0, end).split(";")) {
      if (code === "0" || code === "" || code === "39") colour = "";
      else if (/^3[0-7]$/.test(code)) colour = code;
    }
  }
  return colour;
}

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
const terminal = new TmuxCli("bridle-command-diffs");

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-command-diffs-tty-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
  await writeFile(join(repo, "consts.js"), "const a = 1;\nconst b = 2;\n");
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

it("draws a command's change in colour on a terminal, under the command's line", async () => {
  server = await fakeOpenAI([
    { toolCalls: [call("c1", "bash", { command: "sed -i 's/b = 2/b = 20/' consts.js" })] },
    { text: "Done." },
  ]);
  terminal.start(
    [
      "run",
      "change b",
      "--provider",
      "openai",
      "--model",
      "test-model",
      "--base-url",
      openaiResponsesFormat.baseUrl(server.url),
      "--permission-mode",
      "full-access",
      "--cwd",
      repo,
    ],
    {
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CONFIG_HOME: join(dir, "config"),
      OPENAI_API_KEY: "test-key",
      TERM: "xterm-256color",
    },
  );
  await terminal.waitFor(/done: /);
  const screen = terminal.colouredScreen();
  expect(foregroundAt(screen, "@@ -2 +2 @@")).toBe("36");
  expect(foregroundAt(screen, "-const b = 2;")).toBe("31");
  expect(foregroundAt(screen, "+const b = 20;")).toBe("32");
  const plain = terminal.screen();
  expect(plain).toMatch(
    /✓ bash .*\n--- a\/consts\.js\n\+\+\+ b\/consts\.js\n@@ -2 \+2 @@\n-const b = 2;\n\+const b = 20;\n/,
  );
});
