import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { BubblewrapRunner } from "@bridle/tools-shell";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

// "Always" keeps its scope: in a real terminal, answering "a" on `npm test` remembers that one command,
// so the next `npm test` runs unasked while `npm run build` and `rm -rf src` still ask.
const bwrap = await BubblewrapRunner.probe();
const terminal = new TmuxCli("bridle-scope");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-scope-tty-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, "src"), { recursive: true });
  await writeFile(join(repo, "src", "index.js"), "export const x = 1;\n");
  await writeFile(
    join(repo, "package.json"),
    JSON.stringify({ private: true, scripts: { test: "node --test", build: "node -e 0" } }),
  );
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

/** Lines of the screen that ask for approval. */
function questions(screen: string): string[] {
  return screen.split("\n").filter((line) => /^(Allow|Run OUTSIDE) /.test(line));
}

describe("always on one command, in a terminal", () => {
  it.skipIf(!bwrap.available)(
    `remembers npm test exactly: npm run build and rm -rf src still ask${bwrap.available ? "" : ` — SKIPPED: ${bwrap.reason}`}`,
    async () => {
      server = await fakeOpenAI([
        { toolCalls: [call("t1", "bash", { command: "npm test" })] },
        { toolCalls: [call("t2", "bash", { command: "npm test" })] },
        { toolCalls: [call("b1", "bash", { command: "npm run build" })] },
        { toolCalls: [call("r1", "bash", { command: "rm -rf src" })] },
        { text: "All done." },
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
          "--permission-mode",
          "ask",
          "--sandbox",
          "bwrap",
        ],
        { OPENAI_API_KEY: "k", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
      );
      await terminal.waitFor(/permission mode ask/);
      await terminal.waitFor(/› $/m);
      terminal.keys("run the checks", "Enter");
      await terminal.waitFor(
        /Allow bash npm test\? \[y\]es \/ \[n\]o \/ \[a\]lways for npm test: $/m,
        60_000,
      );
      // One key answers, without Enter.
      terminal.keys("a");
      // The second npm test is not asked; the next question is about npm run build, offering only itself.
      await terminal.waitFor(
        /Allow bash npm run build\? \[y\]es \/ \[n\]o \/ \[a\]lways for npm run build: $/m,
        60_000,
      );
      terminal.keys("n");
      // A deleting command is remembered only for exactly what it deletes.
      await terminal.waitFor(
        /Allow bash rm -rf src\? \[y\]es \/ \[n\]o \/ \[a\]lways for rm -rf src: $/m,
        60_000,
      );
      terminal.keys("n");
      const screen = await terminal.waitFor(/All done\./, 60_000);
      expect(questions(screen).map((line) => line.replace(/\? .*/, ""))).toEqual([
        "Allow bash npm test",
        "Allow bash npm run build",
        "Allow bash rm -rf src",
      ]);
      expect(existsSync(join(repo, "src", "index.js"))).toBe(true);
      // Both npm test calls ran (the second unasked); the refused ones did not.
      const outputs = JSON.stringify(server.requests.at(-1)?.body);
      expect(outputs.match(/"exit_code\\":0/g)?.length).toBe(2);
      expect(outputs).toContain("the user refused");
    },
    240_000,
  );
});
