import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  anthropicMessagesFormat,
  FakeProviderServer,
  openaiResponsesFormat,
  tempWorkspace,
} from "@bridle/testing";
import { lineTag } from "@bridle/tools-edit-hashline";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli } from "./cli-harness.js";

// Every edit format draws its change as a unified diff under its tool line on stderr; in a pipe it is
// plain text (no escape sequences), and --json carries the same change as the result's details.diffs.

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: NodeJS.ProcessEnv;

const LINES = ["const a = 1;", "const b = 2;", "const c = 3;", "const d = 4;", "const e = 5;"];
const SOURCE = `${LINES.join("\n")}\n`;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-diffs-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, "src"), { recursive: true });
  await writeFile(join(repo, "src", "consts.js"), SOURCE);
  await writeFile(join(repo, "old.txt"), "going away\n");
  env = {
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    OPENAI_API_KEY: "test-key",
    ANTHROPIC_API_KEY: "test-key",
  };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

function openaiArgs(s: FakeProviderServer, format: string): string[] {
  return [
    "--provider",
    "openai",
    "--model",
    "test-model",
    "--base-url",
    openaiResponsesFormat.baseUrl(s.url),
    "--profile",
    "generic",
    "--edit-format",
    format,
    "--cwd",
    repo,
  ];
}

/** The lines of stderr from the first line equal to `first`, `count` of them. */
function block(stderr: string, first: string, count: number): string[] {
  const lines = stderr.split("\n");
  const at = lines.indexOf(first);
  expect(at, `no line ${JSON.stringify(first)} in:\n${stderr}`).toBeGreaterThanOrEqual(0);
  return lines.slice(at, at + count);
}

describe("edits render as unified diffs", () => {
  it("replace format: edit_file and write_file show their change, plain in a pipe", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "read_file", { path: "src/consts.js" })] },
      {
        toolCalls: [
          call("c2", "edit_file", {
            path: "src/consts.js",
            old_string: "const c = 3;",
            new_string: "const c = 30;\nconst cc = 31;",
          }),
        ],
      },
      { toolCalls: [call("c3", "write_file", { path: "notes/new.md", content: "# New\n\nhello\n" })] },
      { text: "Done." },
    ]);
    const run = await runCli(["run", "edit", ...openaiArgs(server, "replace")], { cwd: dir, env });
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("\x1b");
    expect(block(run.stderr, "--- a/src/consts.js", 6)).toEqual([
      "--- a/src/consts.js",
      "+++ b/src/consts.js",
      "@@ -3 +3,2 @@",
      "-const c = 3;",
      "+const c = 30;",
      "+const cc = 31;",
    ]);
    expect(block(run.stderr, "--- /dev/null", 6)).toEqual([
      "--- /dev/null",
      "+++ b/notes/new.md",
      "@@ -0,0 +1,3 @@",
      "+# New",
      "+",
      "+hello",
    ]);
    // The diff follows its own tool line, and the answer on stdout holds none of it.
    const lines = run.stderr.split("\n");
    expect(lines[lines.indexOf("--- a/src/consts.js") - 1]).toMatch(/^✓ edit_file /);
    expect(run.stdout).not.toContain("+++");
  });

  it("apply_patch: an update, an added file and a deleted one, each with its own header", async () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: src/consts.js",
      "@@",
      " const a = 1;",
      "-const b = 2;",
      "+const b = 20;",
      " const c = 3;",
      "*** Add File: src/extra.js",
      "+export const extra = true;",
      "*** Delete File: old.txt",
      "*** End Patch",
    ].join("\n");
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "read_file", { path: "src/consts.js" })] },
      { toolCalls: [call("c2", "read_file", { path: "old.txt" })] },
      { toolCalls: [call("c3", "apply_patch", { input: patch })] },
      { text: "Patched." },
    ]);
    const run = await runCli(["run", "patch", ...openaiArgs(server, "apply_patch")], { cwd: dir, env });
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code).toBe(0);
    expect(await readFile(join(repo, "src", "extra.js"), "utf8")).toBe("export const extra = true;\n");
    expect(block(run.stderr, "--- a/src/consts.js", 14)).toEqual([
      "--- a/src/consts.js",
      "+++ b/src/consts.js",
      "@@ -2 +2 @@",
      "-const b = 2;",
      "+const b = 20;",
      "--- /dev/null",
      "+++ b/src/extra.js",
      "@@ -0,0 +1 @@",
      "+export const extra = true;",
      "--- a/old.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-going away",
      expect.stringMatching(/^\[turn|^✓|^→|^done/),
    ]);
  });

  it("hashline: a tagged edit shows the lines it replaced", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "read_file", { path: "src/consts.js" })] },
      {
        toolCalls: [
          call("c2", "edit_file", {
            path: "src/consts.js",
            edits: [
              { op: "replace_line", tag: lineTag(4, "const d = 4;"), new_text: "const d = 40;" },
              { op: "delete_line", tag: lineTag(5, "const e = 5;") },
            ],
          }),
        ],
      },
      { text: "Edited." },
    ]);
    const run = await runCli(["run", "edit", ...openaiArgs(server, "hashline")], { cwd: dir, env });
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code).toBe(0);
    expect(block(run.stderr, "--- a/src/consts.js", 7)).toEqual([
      "--- a/src/consts.js",
      "+++ b/src/consts.js",
      "@@ -4,2 +4 @@",
      "-const d = 4;",
      "-const e = 5;",
      "+const d = 40;",
      expect.not.stringMatching(/^[-+@]/),
    ]);
  });

  it("the anthropic profile's MultiEdit shows one hunk per changed place", async () => {
    server = await FakeProviderServer.start();
    const turns = [
      // MultiEdit waits behind ToolSearch until the model asks for it.
      {
        toolCalls: [
          call("t1", "Read", { file_path: "src/consts.js" }),
          call("t0", "ToolSearch", { query: "MultiEdit" }),
        ],
      },
      {
        toolCalls: [
          call("t2", "MultiEdit", {
            file_path: "src/consts.js",
            edits: [
              { old_string: "const a = 1;", new_string: "const a = 10;" },
              { old_string: "const e = 5;", new_string: "const e = 50;" },
            ],
          }),
        ],
      },
      { text: "Edited." },
    ];
    for (const turn of turns)
      server.enqueue({ kind: "stream", events: anthropicMessagesFormat.events(turn) });
    const run = await runCli(
      [
        "run",
        "edit",
        "--provider",
        "anthropic",
        "--model",
        "claude-sonnet-4-6",
        "--base-url",
        anthropicMessagesFormat.baseUrl(server.url),
        "--cwd",
        repo,
      ],
      { cwd: dir, env },
    );
    expect(run.stderr).not.toMatch(/stopped:/);
    expect(run.code).toBe(0);
    expect(block(run.stderr, "--- a/src/consts.js", 8)).toEqual([
      "--- a/src/consts.js",
      "+++ b/src/consts.js",
      "@@ -1 +1 @@",
      "-const a = 1;",
      "+const a = 10;",
      "@@ -5 +5 @@",
      "-const e = 5;",
      "+const e = 50;",
    ]);
  });

  it("--json carries the diff as details.diffs of the tool result event, and no rendered diff", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "read_file", { path: "src/consts.js" })] },
      {
        toolCalls: [
          call("c2", "edit_file", {
            path: "src/consts.js",
            old_string: "const b = 2;",
            new_string: "const b = 22;",
          }),
        ],
      },
      { text: "Done." },
    ]);
    const run = await runCli(["run", "edit", "--json", ...openaiArgs(server, "replace")], { cwd: dir, env });
    expect(run.code).toBe(0);
    const events = run.stdout
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as { type: string; result?: { toolName: string; details?: { diffs?: unknown } } },
      );
    const edit = events.find(
      (event) => event.type === "tool_call_completed" && event.result?.toolName === "edit_file",
    );
    expect(edit?.result?.details?.diffs).toEqual([
      {
        path: "src/consts.js",
        change: "update",
        added: 1,
        removed: 1,
        hunks: [{ oldStart: 2, newStart: 2, removed: ["const b = 2;"], added: ["const b = 22;"] }],
        omittedLines: 0,
      },
    ]);
    expect(`${run.stdout}${run.stderr}`).not.toContain("+++ b/src/consts.js");
  });

  it("a long write is cut with a line saying how much was left out; control characters are escaped", async () => {
    const content = `${Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "write_file", { path: "big.txt", content })] },
      {
        toolCalls: [
          call("c2", "write_file", { path: "evil.txt", content: "safe\n\x1b]52;c;cHduZWQ=\x07\x1b[2J\n" }),
        ],
      },
      { text: "Written." },
    ]);
    const run = await runCli(["run", "write", ...openaiArgs(server, "replace")], { cwd: dir, env });
    expect(run.code).toBe(0);
    const big = block(run.stderr, "+++ b/big.txt", 63);
    expect(big[2]).toBe("+line 1");
    expect(big[61]).toBe("+line 60");
    expect(big[62]).toBe("… 140 more changed lines not shown");
    expect(run.stderr).not.toContain("+line 61");
    expect(run.stderr).not.toContain("\x1b");
    expect(block(run.stderr, "+++ b/evil.txt", 4).slice(2)).toEqual([
      "+safe",
      "+\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J",
    ]);
  });

  it("a failed edit draws no diff", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "read_file", { path: "src/consts.js" })] },
      {
        toolCalls: [
          call("c2", "edit_file", { path: "src/consts.js", old_string: "const z = 9;", new_string: "x" }),
        ],
      },
      { text: "Could not." },
    ]);
    const run = await runCli(["run", "edit", ...openaiArgs(server, "replace")], { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^✗ edit_file /m);
    expect(run.stderr).not.toContain("--- a/src/consts.js");
    expect(await readFile(join(repo, "src", "consts.js"), "utf8")).toBe(SOURCE);
  });
});
