import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildEvidence } from "@bridle/coding";
import type { RunEvent } from "@bridle/core";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli } from "./cli-harness.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: NodeJS.ProcessEnv;

function git(...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd: repo,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    stdio: "ignore",
  });
}

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-coding-"));
  repo = join(dir, "repo");
  await mkdir(join(repo, "src"), { recursive: true });
  await writeFile(join(repo, "src", "greet.js"), 'export const greet = (name) => "Helo, " + name;\n');
  await writeFile(join(repo, "notes.md"), "# notes\n");
  await writeFile(join(repo, "package.json"), JSON.stringify({ scripts: { test: "node test.js" } }, null, 2));
  await writeFile(join(repo, "test.js"), "console.log('expected Hello'); process.exit(1);\n");
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
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

function baseArgs(s: FakeProviderServer): string[] {
  const url = openaiResponsesFormat.baseUrl(s.url);
  return ["--provider", "openai", "--model", "test-model", "--base-url", url, "--cwd", repo];
}

function toolNamesSent(s: FakeProviderServer, request = 0): string[] {
  const body = s.requests[request]?.body as { tools?: { name?: string }[] } | undefined;
  return (body?.tools ?? []).map((tool) => tool.name ?? "");
}

describe("bridle run with the coding overlay", () => {
  it("prints the handoff and writes the evidence: the user's edit is pre-existing and untouched", async () => {
    // The user's uncommitted work before the run.
    await writeFile(join(repo, "notes.md"), "# notes\n\nmy own edit\n");
    const userBytes = await readFile(join(repo, "notes.md"));
    server = await fakeOpenAI([
      // The overlay's review and plan tools wait behind tool_search until the model asks for them.
      { toolCalls: [call("c0", "tool_search", { query: "git_status update_plan handoff_notes" })] },
      { toolCalls: [call("c1", "git_status", {})] },
      {
        toolCalls: [
          call("c2", "update_plan", {
            plan: [
              { step: "fix the typo", status: "in_progress" },
              { step: "run the tests", status: "pending" },
            ],
            scope: ["src/"],
          }),
        ],
      },
      { toolCalls: [call("c3", "bash", { command: "sed -i 's/Helo/Hello/' src/greet.js" })] },
      { toolCalls: [call("c4", "handoff_notes", { risks: ["greeting text changes for every caller"] })] },
      { text: "Fixed the greeting." },
    ]);
    const evidencePath = join(dir, "evidence.json");
    const run = await runCli(
      ["run", "fix the greeting typo", "--yes", "--evidence", evidencePath, ...baseArgs(server)],
      {
        cwd: dir,
        env,
      },
    );
    expect(run.code).toBe(0);
    expect(toolNamesSent(server)).toEqual(expect.arrayContaining(["run_check", "tool_search"]));
    expect(toolNamesSent(server, 1)).toEqual(
      expect.arrayContaining(["git_status", "update_plan", "handoff_notes"]),
    );
    expect(run.stderr).toContain("plan:\n  [>] fix the typo\n  [ ] run the tests");
    expect(run.stderr).toMatch(/handoff: UNVERIFIED \(files changed but no check ran and passed\)/);
    expect(run.stderr).toContain("src/greet.js +1 -1");
    expect(run.stderr).toContain("user's changes left alone: 1");
    const evidence = JSON.parse(await readFile(evidencePath, "utf8"));
    expect(Object.keys(evidence)).toEqual([
      "task",
      "filesChanged",
      "preexistingChanges",
      "commands",
      "checks",
      "flags",
      "assumptions",
      "risks",
      "followUps",
    ]);
    expect(evidence).toMatchObject({
      task: "fix the greeting typo",
      filesChanged: [{ path: "src/greet.js", added: 1, removed: 1 }],
      preexistingChanges: ["notes.md"],
      commands: [{ command: "sed -i 's/Helo/Hello/' src/greet.js", exitCode: 0 }],
      flags: [],
      risks: ["greeting text changes for every caller"],
    });
    expect(evidence.checks[0]).toEqual({
      kind: "test",
      command: "npm run test",
      status: "skipped",
      note: "detected (package.json scripts.test), not run",
    });
    expect((await readFile(join(repo, "notes.md"))).equals(userBytes)).toBe(true);
  });

  it("stops after --repair-attempts failed repairs, exits 1 and the handoff says failed", async () => {
    const check = (id: string) => ({ toolCalls: [call(id, "run_check", { kind: "test" })] });
    server = await fakeOpenAI([check("c1"), check("c2"), check("c3"), { text: "Tests pass now." }]);
    const evidencePath = join(dir, "evidence.json");
    const args = [
      "run",
      "make the tests pass",
      "--yes",
      "--repair-attempts",
      "1",
      "--evidence",
      evidencePath,
    ];
    const run = await runCli([...args, ...baseArgs(server)], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/handoff: FAILED \(the run stopped \(tool_retries_exceeded/);
    const evidence = JSON.parse(await readFile(evidencePath, "utf8"));
    expect(evidence.checks[0]).toEqual({
      kind: "test",
      command: "npm run test",
      status: "failed",
      note: "exit code 1; 2 runs, 2 failed",
    });
    expect(evidence.commands).toEqual([
      { command: "npm run test", exitCode: 1 },
      { command: "npm run test", exitCode: 1 },
    ]);
    expect(server.requests).toHaveLength(2);
  });

  it("the evidence is the events' own: rebuilt from --json's lines or from the stored session, it is the same", async () => {
    await writeFile(join(repo, "notes.md"), "user edit\n");
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "echo '// done' >> src/greet.js" })] },
      { toolCalls: [call("c2", "run_check", { kind: "test" })] },
      { text: "Done, but the test fails." },
    ]);
    const evidencePath = join(dir, "evidence.json");
    const args = [
      "run",
      "append a comment",
      "--yes",
      "--json",
      "--evidence",
      evidencePath,
      ...baseArgs(server),
    ];
    const run = await runCli(args, { cwd: dir, env });
    // The run completed, but its handoff says FAILED (the test fails on the final code): exit 1.
    expect(run.code).toBe(1);
    const events = run.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as RunEvent);
    const written = JSON.parse(await readFile(evidencePath, "utf8"));
    expect(buildEvidence(events)).toEqual(written);
    expect(written.filesChanged).toEqual([{ path: "src/greet.js", added: 1, removed: 0 }]);
    expect(written.preexistingChanges).toEqual(["notes.md"]);
    expect(written.checks[0]).toMatchObject({ kind: "test", status: "failed" });
    expect(run.stderr).toMatch(/handoff: FAILED \(failing checks: test\)/);
    // The session store holds the same facts: the handoff can be rebuilt from a stored session.
    const id = /"sessionId":"([^"]+)"/.exec(run.stdout)?.[1] as string;
    const shown = await runCli(["sessions", "show", id, "--json", "--cwd", repo], { cwd: dir, env });
    expect(shown.code).toBe(0);
    const stored = shown.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { event: RunEvent }).event);
    expect(buildEvidence(stored)).toEqual(written);
  });

  it("--no-coding is a bare loop; the coding flags are checked", async () => {
    server = await fakeOpenAI([{ text: "Hi." }]);
    const bare = await runCli(["run", "hello", "--no-coding", ...baseArgs(server)], { cwd: dir, env });
    expect(bare.code).toBe(0);
    expect(toolNamesSent(server)).not.toContain("git_status");
    expect(bare.stderr).not.toContain("handoff:");
    for (const bad of [
      ["--repair-attempts", "many"],
      ["--repair-attempts", "-1"],
      ["--no-coding", "--evidence", "e.json"],
    ]) {
      const run = await runCli(["run", "x", ...bad, ...baseArgs(server)], { cwd: dir, env });
      expect(run.code, bad.join(" ")).toBe(2);
    }
    const elsewhere = await runCli(["tools", "list", "--no-coding"], { cwd: dir, env });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain("--no-coding is an option of bridle run");
  });
});
