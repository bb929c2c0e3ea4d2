import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli } from "./cli-harness.js";

// A shell command's changes drawn as edits are: a unified diff under the command's tool line (plain in a
// pipe), --json carrying them as the result's details, binary files and secrets named but never shown,
// and a command that writes many files counted rather than drawn whole.

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: NodeJS.ProcessEnv;

// Shapes the secret scan knows; the test checks neither reaches a screen.
const KEY = "AKIA" + "QZ7X2M4K9TBW3VNR";
const PASSWORD = "hunter2-very-secret";

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-command-diffs-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
  await writeFile(join(repo, "consts.js"), "const a = 1;\nconst b = 2;\nconst c = 3;\n");
  await writeFile(join(repo, "key.src"), `aws_key = ${KEY}\n`);
  await writeFile(join(repo, "env.src"), `PASSWORD=${PASSWORD}\n`);
  execFileSync("git", ["init", "-q", repo]);
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

function args(s: FakeProviderServer, ...more: string[]): string[] {
  return [
    "run",
    "change things",
    ...more,
    "--provider",
    "openai",
    "--model",
    "m",
    "--base-url",
    openaiResponsesFormat.baseUrl(s.url),
    "--profile",
    "generic",
    "--permission-mode",
    "full-access",
    "--cwd",
    repo,
  ];
}

describe("a command's changes render as diffs", () => {
  it("draws a text file's change, names binary and secret files, and counts past its bounds", async () => {
    const command = [
      "sed -i 's/b = 2/b = 20/' consts.js",
      "printf 'P\\000NG' > logo.bin",
      "cp env.src .env",
      "cp key.src config.txt",
      "mkdir many && for i in $(seq 1 30); do echo $i > many/f$(printf %02d $i).txt; done",
    ].join(" && ");
    server = await fakeOpenAI([{ toolCalls: [call("c1", "bash", { command })] }, { text: "Done." }]);
    const run = await runCli(args(server), { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("\x1b");
    const lines = run.stderr.split("\n");
    const at = lines.indexOf("--- a/consts.js");
    expect(lines[at - 1]).toMatch(/^✓ bash /);
    expect(lines.slice(at, at + 5)).toEqual([
      "--- a/consts.js",
      "+++ b/consts.js",
      "@@ -2 +2 @@",
      "-const b = 2;",
      "+const b = 20;",
    ]);
    expect(lines.slice(at + 5, at + 9)).toEqual([
      "--- /dev/null",
      "+++ b/many/f01.txt",
      "@@ -0,0 +1 @@",
      "+1",
    ]);
    // 34 files changed: 20 drawn (consts.js and the first 19 of many/), 3 named, 11 counted.
    expect(run.stderr).toContain("+++ b/many/f19.txt\n");
    expect(run.stderr).not.toContain("many/f20.txt");
    expect(run.stderr).toContain(
      [
        "added .env (may hold a secret, not shown)",
        "added config.txt (may hold a secret, not shown)",
        "added logo.bin (binary, not shown)",
        "… 11 more files changed (34 in all)",
      ].join("\n"),
    );
    expect(run.stderr).not.toContain(KEY);
    expect(run.stderr).not.toContain(PASSWORD);
  });

  it("--json carries the diffs and the named files in the result's details", async () => {
    const command = "sed -i 's/c = 3/c = 30/' consts.js && printf 'P\\000NG' > logo.bin";
    server = await fakeOpenAI([{ toolCalls: [call("c1", "bash", { command })] }, { text: "Done." }]);
    const run = await runCli(args(server, "--json"), { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const events = run.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; result?: { toolName: string; details?: unknown } });
    const completed = events.find((e) => e.type === "tool_call_completed" && e.result?.toolName === "bash");
    expect(completed?.result?.details).toMatchObject({
      diffs: [
        {
          path: "consts.js",
          change: "update",
          added: 1,
          removed: 1,
          hunks: [{ oldStart: 3, newStart: 3, removed: ["const c = 3;"], added: ["const c = 30;"] }],
          omittedLines: 0,
        },
      ],
      changed_files: { count: 2, unshown: [{ path: "logo.bin", change: "add", reason: "binary" }] },
    });
  });

  it("a command that changes nothing adds nothing to its result", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "cat consts.js" })] },
      { text: "Done." },
    ]);
    const run = await runCli(args(server, "--json"), { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    const completed = run.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; result?: { details?: Record<string, unknown> } })
      .find((e) => e.type === "tool_call_completed");
    expect(completed?.result?.details).toBeDefined();
    expect(completed?.result?.details).not.toHaveProperty("diffs");
    expect(completed?.result?.details).not.toHaveProperty("changed_files");
  });
});
