// Hook scripts written as Claude Code users write them, run by `bridle run`: from the user's own config, and
// from their Claude Code settings file with --claude-hooks; a workspace's hooks wait for trust.
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli, toolOutputsSent } from "./cli-harness.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-hooks-"));
  repo = join(dir, "repo");
  await mkdir(repo);
  await writeFile(join(repo, "keep.txt"), "keep me\n");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

const env = () => ({
  HOME: join(dir, "home"),
  XDG_DATA_HOME: join(dir, "data"),
  XDG_CONFIG_HOME: join(dir, "config"),
  OPENAI_API_KEY: "k",
});

// A guard as people write them: read the tool call from stdin with jq-free bash, refuse rm with exit 2.
const GUARD = `#!/usr/bin/env bash
input=$(cat)
echo "$input" >> "$(dirname "$0")/seen.jsonl"
if echo "$input" | grep -q '"command":"rm '; then
  echo "rm is not allowed here: move files to trash/ instead" >&2
  exit 2
fi
exit 0
`;

async function guardScript(folder: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  const path = join(folder, "guard.sh");
  await writeFile(path, GUARD);
  await chmod(path, 0o755);
  return path;
}

const hooksUsing = (command: string) => ({
  PreToolUse: [{ matcher: "bash|Bash|shell", hooks: [{ type: "command", command, timeout: 30 }] }],
});

const runArgs = () => [
  "run",
  "tidy up",
  "--provider",
  "openai",
  "--model",
  "test-model",
  "--base-url",
  openaiResponsesFormat.baseUrl(server?.url ?? ""),
  "--cwd",
  repo,
  "--sandbox",
  "off",
  "--profile",
  "generic",
  "--no-coding",
  "--yes",
];

describe("hook scripts in Claude Code's protocol", () => {
  it("runs a PreToolUse guard from the user's config: exit 2 blocks the call and the model reads why", async () => {
    const guard = await guardScript(join(dir, "hooks"));
    await mkdir(join(dir, "config", "bridle"), { recursive: true });
    await writeFile(
      join(dir, "config", "bridle", "bridle.config.json"),
      JSON.stringify({ hooks: hooksUsing(guard) }),
    );
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "rm keep.txt" })] },
      { text: "I left it." },
    ]);
    const run = await runCli(runArgs(), { cwd: dir, env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(join(repo, "keep.txt"), "utf8")).toBe("keep me\n");
    expect(toolOutputsSent(server).join("\n")).toContain(
      "rm is not allowed here: move files to trash/ instead",
    );
    const seen = JSON.parse(
      (await readFile(join(dir, "hooks", "seen.jsonl"), "utf8")).trim().split("\n")[0] as string,
    );
    expect(seen).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "bash",
      tool_input: { command: "rm keep.txt" },
    });
    expect(seen.cwd).toBe(repo);
    // transcript_path names the session's transcript in Claude Code's shape, holding the call it guarded.
    const transcript = (await readFile(seen.transcript_path, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(transcript[0]).toMatchObject({
      type: "user",
      sessionId: seen.session_id,
      message: { content: "tidy up" },
    });
    expect(transcript[1]).toMatchObject({
      type: "assistant",
      message: { content: [{ type: "tool_use", name: "bash", input: { command: "rm keep.txt" } }] },
    });
  });

  it("reads ~/.claude/settings.json unchanged with --claude-hooks, and not without it", async () => {
    const guard = await guardScript(join(dir, "home", ".claude", "hooks"));
    await writeFile(
      join(dir, "home", ".claude", "settings.json"),
      JSON.stringify({ hooks: hooksUsing(guard) }),
    );
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "rm keep.txt" })] },
      { text: "Blocked." },
    ]);
    const guarded = await runCli([...runArgs(), "--claude-hooks"], { cwd: dir, env: env() });
    expect(guarded.code, guarded.stderr).toBe(0);
    expect(await readFile(join(repo, "keep.txt"), "utf8")).toBe("keep me\n");
    server.close();
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "rm keep.txt" })] },
      { text: "Done." },
    ]);
    const plain = await runCli(runArgs(), { cwd: dir, env: env() });
    expect(plain.code, plain.stderr).toBe(0);
    await expect(readFile(join(repo, "keep.txt"), "utf8")).rejects.toThrow();
  });

  it("leaves a workspace config's hooks out until the workspace is trusted, and says so", async () => {
    const marker = join(dir, "ran");
    await writeFile(
      join(repo, "bridle.config.json"),
      JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] },
      }),
    );
    server = await fakeOpenAI([{ text: "Hi." }]);
    const run = await runCli(runArgs(), { cwd: dir, env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/hooks/);
    await expect(readFile(marker)).rejects.toThrow();
  });

  it("refuses hooks that are not Claude Code's shape, as a usage error", async () => {
    await mkdir(join(dir, "config", "bridle"), { recursive: true });
    await writeFile(
      join(dir, "config", "bridle", "bridle.config.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command" }] }] } }),
    );
    server = await fakeOpenAI([{ text: "Hi." }]);
    const run = await runCli(runArgs(), { cwd: dir, env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^bridle: hooks: /m);
    expect(server.requests).toHaveLength(0);
  });
});
