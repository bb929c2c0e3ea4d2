// On a terminal an edit's diff is coloured (removed lines red, added green, hunk headers cyan): the built
// CLI in tmux, its screen read back with its colours.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { call, fakeOpenAI } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const ESC = "\u001b";

/**
 * The foreground colour (an SGR code, "" for the default) in force where `text` starts on the screen:
 * tmux redraws colours with sequences of its own, so the last one set before the text is what shows.
 */
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
const terminal = new TmuxCli("bridle-edit-diffs");

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-diffs-tty-"));
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

it("draws an edit's diff in colour on a terminal", async () => {
  server = await fakeOpenAI([
    { toolCalls: [call("c1", "read_file", { path: "consts.js" })] },
    {
      toolCalls: [
        call("c2", "edit_file", {
          path: "consts.js",
          old_string: "const b = 2;",
          new_string: "const b = 20;",
        }),
      ],
    },
    { text: "Done." },
  ]);
  terminal.start(
    [
      "run",
      "edit",
      "--provider",
      "openai",
      "--model",
      "test-model",
      "--base-url",
      openaiResponsesFormat.baseUrl(server.url),
      "--profile",
      "generic",
      "--edit-format",
      "replace",
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
  expect(plain).toContain("--- a/consts.js\n+++ b/consts.js\n@@ -2 +2 @@\n-const b = 2;\n+const b = 20;\n");
});
