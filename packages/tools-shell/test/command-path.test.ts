import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ToolFailure, Workspace } from "@bridle/core";
import { CommandPolicy, type PolicyResult } from "@bridle/shell-policy";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShellTools, ShellEnvironment } from "../src/index.js";
import { call, failure } from "./helpers.js";

// The one command path every tool that runs a command takes (bash, bash_start, skill_run, run_check):
// admit (the permission mode's table over the policy's verdict), run, describe the exit. Its verdict
// cache: one judgement per command text and resolved folder, dropped once a command is admitted to run.

/** The policy a library user passes, counting its judgements (mode read-only: what no sandbox gets). */
class CountingPolicy extends CommandPolicy {
  readonly judged: string[] = [];
  override check(...args: Parameters<CommandPolicy["check"]>): Promise<PolicyResult> {
    this.judged.push(`${args[0]} @ ${String(args[2] ?? ".")}`);
    return super.check(...args);
  }
}

let dir: string;
let outside: string;
let cleanup: () => Promise<void>;
let cleanupOutside: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-command-path-"));
  ({ dir: outside, cleanup: cleanupOutside } = await tempWorkspace("bridle-command-path-outside-"));
  await writeFile(join(outside, "secret.txt"), "outside\n");
  await mkdir(join(dir, "src"));
  await mkdir(join(dir, "lib"));
  await writeFile(join(dir, "src", "data.txt"), "inside\n");
  // The same name in another folder reaches outside the workspace.
  await symlink(join(outside, "secret.txt"), join(dir, "lib", "data.txt"));
  await writeFile(join(dir, "a.txt"), "alpha\n");
  await symlink(join(dir, "a.txt"), join(dir, "link.txt"));
});
afterAll(async () => {
  await cleanup();
  await cleanupOutside();
});

describe("the verdict cache", () => {
  it("judges a command once for its approval and its run, and again in another folder", async () => {
    const policy = new CountingPolicy({ mode: "read-only" });
    const env = await ShellEnvironment.create({ policy });
    expect(env.policy).toBe(policy);
    const workspace = new Workspace(dir);
    expect(await env.needsApproval({ command: "cat data.txt", cwd: "src" }, workspace)).toBe(false);
    // The same text in another folder is another question: lib/data.txt leads outside.
    expect(await env.needsApproval({ command: "cat data.txt", cwd: "lib" }, workspace)).toBe(true);
    // Fresh argument objects, as skill_run and run_check build them: the text and folder are the key.
    await env.approvalScope({ command: "cat data.txt", cwd: "lib" }, workspace);
    const admitted = await env.admit({ command: "cat data.txt", cwd: "src" }, workspace);
    expect(admitted.verdict?.decision).toBe("allow");
    expect(policy.judged).toEqual([
      `cat data.txt @ ${join(dir, "src")}`,
      `cat data.txt @ ${join(dir, "lib")}`,
    ]);
  });

  it("drops every verdict once a command is admitted: what it runs may change what the next one reaches", async () => {
    const policy = new CountingPolicy({ mode: "read-only" });
    const env = await ShellEnvironment.create({ policy });
    const workspace = new Workspace(dir);
    expect(await env.needsApproval({ command: "cat link.txt" }, workspace)).toBe(false);
    // Retargeted outside while nothing ran through the path: the approval's verdict stands for its run.
    await symlinkOver(join(outside, "secret.txt"), join(dir, "link.txt"));
    try {
      expect(await env.needsApproval({ command: "cat link.txt" }, workspace)).toBe(false);
      expect(policy.judged).toHaveLength(1);
      await env.admit({ command: "true" }, workspace);
      // A command was admitted since: judged again, and now it reaches outside.
      expect(await env.needsApproval({ command: "cat link.txt" }, workspace)).toBe(true);
      expect(policy.judged).toHaveLength(3);
    } finally {
      await symlinkOver(join(dir, "a.txt"), join(dir, "link.txt"));
    }
  });

  it("does not carry a verdict into another workspace", async () => {
    const policy = new CountingPolicy({ mode: "read-only" });
    const env = await ShellEnvironment.create({ policy });
    const request = { command: "cat ../a.txt", cwd: join(dir, "src") };
    expect(await env.needsApproval(request, new Workspace(dir))).toBe(false);
    // The same text in the same folder, in a workspace that is only src: ../a.txt is outside it.
    expect(await env.needsApproval(request, new Workspace(join(dir, "src")))).toBe(true);
    expect(policy.judged).toHaveLength(2);
  });
});

describe("admit, run, describe the exit", () => {
  it("refuses with the permission table's words, and honours the policy's settings", async () => {
    const env = await ShellEnvironment.create({ policy: { rules: [{ decision: "deny", argv: ["wc"] }] } });
    const refused = await failure(env.admit({ command: "wc -l a.txt" }, new Workspace(dir)));
    expect(refused).toBeInstanceOf(ToolFailure);
    expect(refused.kind).toBe("Denied");
    expect(refused.message).toBe(
      'your deny rule "wc" matches this command; do it another way or ask the user',
    );
    // bash says the same, word for word: it is the same path.
    const shell = await createShellTools({ policy: { rules: [{ decision: "deny", argv: ["wc"] }] } });
    const viaBash = await failure(call(shell.bash, { command: "wc -l a.txt" }, dir));
    expect(viaBash.message).toBe(refused.message);
    await shell.stopAll();
  });

  it("names a script it runs in the refusal, and the strictest of the command and its scripts holds", async () => {
    const env = await ShellEnvironment.create();
    const workspace = new Workspace(dir);
    const request = { command: "cat a.txt", runs: ["cat .env"] };
    const refused = await failure(env.admit(request, workspace));
    expect(refused.message).toMatch(/^the command policy denies the script it runs: /);
    expect(await env.needsApproval({ command: "cat a.txt", runs: ["touch b.txt"] }, workspace)).toBe(true);
    expect(await env.needsApproval({ command: "cat a.txt", runs: ["wc -l a.txt"] }, workspace)).toBe(false);
  });

  it("runs what it admitted and describes the exit as bash does, a capped timeout included", async () => {
    const env = await ShellEnvironment.create({
      sandbox: { max_execution_ms: 5_000, max_stdout_bytes: 1_000 },
    });
    const workspace = new Workspace(dir);
    const capped = env.timeoutFor(60_000);
    expect(capped).toEqual({
      timeoutMs: 5_000,
      note: "timeout_ms 60000 is above the policy's 5000 ms and was capped",
    });
    expect(env.timeoutFor(100)).toEqual({ timeoutMs: 100 });
    const admission = await env.admit({ command: "cat a.txt; exit 3", cwd: "src" }, workspace);
    expect(admission.cwd).toBe(join(dir, "src"));
    const run = await env.run(admission, callEnv(workspace), { timeoutMs: capped.timeoutMs });
    expect(run.stderr.text).toContain("a.txt");
    const ended = env.describeExit(run, { timeoutMs: capped.timeoutMs, workspace });
    expect(ended).toMatchObject({ exit_code: 3, success: false, timed_out: false, notes: [] });
    // Output past the cap: the same note bash gives, naming the spill file inside the workspace.
    const long = await env.run(await env.admit({ command: "seq 1 3000" }, workspace), callEnv(workspace), {
      timeoutMs: capped.timeoutMs,
    });
    const described = env.describeExit(long, { timeoutMs: capped.timeoutMs, workspace });
    expect(described).toMatchObject({ exit_code: 0, success: true, timed_out: false });
    expect(described.notes).toEqual([
      expect.stringMatching(
        /^stdout was 13893 bytes; its head and tail are shown, all of it is in \.bridle\/shell-output\/run-command-path\/call_\w+\.stdout$/,
      ),
    ]);
  });
});

function callEnv(workspace: Workspace) {
  return {
    signal: new AbortController().signal,
    workspace,
    runId: "run-command-path",
    toolCallId: `call_${Math.random().toString(36).slice(2)}`,
    progress: () => {},
  };
}

async function symlinkOver(target: string, path: string): Promise<void> {
  const { rm } = await import("node:fs/promises");
  await rm(path, { force: true });
  await symlink(target, path);
}
