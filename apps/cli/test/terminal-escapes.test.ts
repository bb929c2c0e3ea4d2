// What `bridle run` prints of text it did not write (the model's answer, a tool's arguments and result, a
// file name, a tool name the model made up, stored sessions) never reaches the terminal as control
// characters: the built CLI against the loopback fake provider, its bytes read off the pipes, and once in a
// real terminal (tmux) whose screen and title are read back.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli } from "./cli-harness.js";
import { TmuxCli } from "./tmux.js";

const CLEAR = "\x1b[2J\x1b[H";
const CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"; // OSC 52: sets the clipboard to "pwned"
const TITLE = "\x1b]0;pwned-title\x07";
const C1_CSI = "\u009b2J";
const UP_AND_ERASE = "\x1b[1A\x1b[2K";
const HOSTILE = `${CLEAR}${CLIPBOARD}${TITLE}${C1_CSI}${UP_AND_ERASE}`;

/** A file name holding an OSC title, a C1 CSI and a lone carriage return. */
const FILE = `notes\x1b]0;pwned-title\x07\u009b2J\rx.txt`;
/** Any C0 but newline, DEL or C1 character: none may be written raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: Record<string, string>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-escapes-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
  await writeFile(join(repo, FILE), `${CLIPBOARD}first line of the notes${CLEAR}\nsecond\n`);
  env = {
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    OPENAI_API_KEY: "test-key",
  };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

/** The answer's hostile part streams three characters at a time, so its sequences are split across deltas. */
const ANSWER = `Done ${HOSTILE}rewritten\rX end.`;

function script() {
  return fakeOpenAI([
    {
      text: "Line one stays.\n",
      toolCalls: [
        call("c1", "read_file", { path: FILE }),
        // list_dir waits behind tool_search until the model asks for it.
        call("c2", "tool_search", { query: "list_dir" }),
        call("c3", `evil${CLEAR}tool`, { command: `argument ${HOSTILE}` }),
      ],
    },
    { toolCalls: [call("c4", "list_dir", { path: "." })] },
    { text: ANSWER, chunkSize: 3 },
  ]);
}

function runArgs(s: FakeProviderServer): string[] {
  return [
    "run",
    `read the notes${TITLE}`,
    "--session",
    "hostile",
    "--provider",
    "openai",
    "--model",
    "test-model",
    "--base-url",
    openaiResponsesFormat.baseUrl(s.url),
    "--cwd",
    repo,
    "--profile",
    "generic",
    "--no-coding",
  ];
}

function expectNoRawControl(text: string): void {
  const found = RAW_CONTROL.exec(text);
  expect(found, found ? `raw U+${found[0].codePointAt(0)?.toString(16)} at ${found.index}` : "").toBeNull();
}

describe("bridle run on pipes", () => {
  it("shows every control character of the answer, arguments, results and names as a visible escape", async () => {
    server = await script();
    const run = await runCli(runArgs(server), { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expectNoRawControl(run.stdout);
    expectNoRawControl(run.stderr);
    // The answer: each sequence shown whole although it arrived in pieces.
    expect(run.stdout).toContain("Line one stays.\n");
    expect(run.stdout).toContain(
      "Done \\x1b[2J\\x1b[H\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;pwned-title\\x07\\u009b2J\\x1b[1A\\x1b[2Krewritten\\x0dX end.",
    );
    // The file name as an argument, and in the result that lists the folder.
    expect(run.stderr).toContain("→ read_file notes\\x1b]0;pwned-title\\x07\\u009b2J\\x0dx.txt");
    expect(run.stderr).toMatch(/✓ list_dir .*notes\\u001b\]0;pwned-title\\u0007\\u009b2J\\rx\.txt/);
    // The file's content in read_file's result line.
    expect(run.stderr).toMatch(/✓ read_file .*\\x1b\]52;c;cHduZWQ=\\x07first line of the notes/);
    // A tool name the model made up, its arguments, and the failure naming it.
    expect(run.stderr).toContain("→ evil\\x1b[2J\\x1b[Htool");
    expect(run.stderr).toContain("argument \\x1b[2J\\x1b[H\\x1b]52;c;cHduZWQ=\\x07");
    expect(run.stderr).toMatch(/✗ evil\\x1b\[2J\\x1b\[Htool/);

    // What the store kept is shown the same way.
    for (const args of [
      ["sessions", "list"],
      ["sessions", "show", "hostile"],
      ["sessions", "list", "--json"],
    ]) {
      const shown = await runCli(args, { cwd: repo, env });
      expect(shown.code, shown.stderr).toBe(0);
      expectNoRawControl(shown.stdout);
      expectNoRawControl(shown.stderr);
    }
    const show = await runCli(["sessions", "show", "hostile"], { cwd: repo, env });
    expect(show.stdout).toContain("user: read the notes\\x1b]0;pwned-title\\x07");
    expect(show.stdout).toContain("assistant: Done \\x1b[2J\\x1b[H\\x1b]52;c;cHduZWQ=\\x07");
    expect(show.stdout).toContain("\\x1b[1A\\x1b[2Krewritten\\x0dX end.");
  });

  it("--json writes no raw control character, and parses back to exactly what the model sent", async () => {
    server = await script();
    const run = await runCli([...runArgs(server), "--json"], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expectNoRawControl(run.stdout);
    expectNoRawControl(run.stderr);
    const events = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; delta?: string; request?: number });
    const answer = events
      .filter((event) => event.type === "text_delta")
      .map((event) => event.delta)
      .join("");
    expect(answer).toBe(`Line one stays.\n${ANSWER}`);
    // The split is real: some delta ends inside a sequence.
    const splitInside = (delta = "") => delta.endsWith("\x1b") || delta.endsWith("\x1b[");
    expect(events.some((event) => event.type === "text_delta" && splitInside(event.delta))).toBe(true);
  });
});

describe("bridle run in a terminal", () => {
  const terminal = new TmuxCli("bridle-escapes");
  afterEach(() => terminal.kill());

  it("keeps earlier lines on the screen and the window's title untouched", async () => {
    server = await script();
    terminal.start(runArgs(server), env);
    await terminal.waitFor(/done: 3 model requests/);
    const title = terminal.title();
    const screen = terminal.visibleScreen();
    // Nothing was cleared or rewritten: the first line of the answer and the first call are still in view.
    expect(screen).toContain("Line one stays.");
    expect(screen).toMatch(/→ read_file notes\\x1b\]0;pwned-title\\x07\\u009b2J\\x0dx\.txt/);
    expect(screen).toContain("Done \\x1b[2J\\x1b[H\\x1b]52;c;cHduZWQ=\\x07");
    expect(screen).toContain("\\x1b[1A\\x1b[2Krewritten\\x0dX end.");
    expect(title).not.toContain("pwned");
  });
});
