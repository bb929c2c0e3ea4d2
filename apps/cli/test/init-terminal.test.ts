// `/init` in the interactive session: the model is asked to draft AGENTS.md from what it reads of the
// repository, and its write goes through the session's approvals like any other (here `ask` mode, where a
// write asks); a refused write leaves no file.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { call, fakeOpenAI, queueTurns, userTexts } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const terminal = new TmuxCli("bridle-init");
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

const DRAFT = "# AGENTS.md\n\nRun `npm test` before you finish.\n";

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-tty-init-"));
  repo = join(dir, "repo");
  await mkdir(repo);
  await writeFile(join(repo, "package.json"), JSON.stringify({ scripts: { test: "node test.js" } }));
});
afterEach(async () => {
  terminal.kill();
  await server?.close();
  server = undefined;
  await cleanup();
});

it("drafts AGENTS.md through the model and writes it only once the person approves", async () => {
  server = await fakeOpenAI([
    { toolCalls: [call("c1", "write_file", { path: "AGENTS.md", content: DRAFT })] },
    { text: "Refused, so nothing was written." },
  ]);
  terminal.start(
    [
      "--model",
      "m",
      "--base-url",
      openaiResponsesFormat.baseUrl(server.url),
      "--cwd",
      repo,
      "--permission-mode",
      "ask",
      "--no-coding",
    ],
    { OPENAI_API_KEY: "k", XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") },
  );
  await terminal.waitFor(/› $/m);
  terminal.keys("/init mention the test script", "Enter");
  await terminal.waitFor(/init: asking the agent to draft AGENTS\.md from the repository/);
  // The question waiting for its answer: the line ends where the answer goes.
  await terminal.waitFor(/Allow write_file AGENTS\.md\? \[y\]es \/ \[n\]o \/ \[a\]lways for write_file: $/m);
  terminal.keys("n");
  // Each turn is named before its text.
  await terminal.waitFor(/^\[turn 2\]\nRefused, so nothing was written\./m);
  expect(existsSync(join(repo, "AGENTS.md"))).toBe(false);
  const [asked] = userTexts(server.requests[0]?.body);
  expect(asked).toContain("Write an AGENTS.md at the root of this workspace");
  expect(asked).toContain("Also: mention the test script");

  queueTurns(server, [
    { toolCalls: [call("c2", "write_file", { path: "AGENTS.md", content: DRAFT })] },
    { text: "Wrote AGENTS.md." },
  ]);
  await terminal.waitFor(/› $/m);
  terminal.keys("/init", "Enter");
  // The question waiting for its answer: the line ends where the answer goes.
  await terminal.waitFor(/Allow write_file AGENTS\.md\? \[y\]es \/ \[n\]o \/ \[a\]lways for write_file: $/m);
  terminal.keys("y");
  await terminal.waitFor(/Wrote AGENTS\.md\./);
  expect(await readFile(join(repo, "AGENTS.md"), "utf8")).toBe(DRAFT);

  // With the file there, /init asks for a review of it instead of a new one.
  queueTurns(server, [{ text: "It is accurate." }]);
  await terminal.waitFor(/› $/m);
  terminal.keys("/init", "Enter");
  await terminal.waitFor(/init: asking the agent to review AGENTS\.md against the repository/);
  await terminal.waitFor(/It is accurate\./);
  expect(userTexts(server.requests.at(-1)?.body).at(-1)).toContain(
    "This repository already has an AGENTS.md",
  );
});
