import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ApprovalRequest, type Approver, Harness, type ToolResultMessage, textOf } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BubblewrapRunner, createShellTools } from "../src/index.js";

// The sandbox masks secret files, not git's object store: where history holds a `.env` (committed, then
// deleted), commands that print it from history ask in workspace mode with the sandbox, while commands
// that print only names and messages run unasked. Each call runs for real in bubblewrap.
const bwrap = await BubblewrapRunner.probe();
const CANARY = "BRIDLE-HISTORY-CANARY";

let ws: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempWorkspace("bridle-sandbox-history-"));
  ws = dir;
  await writeFile(join(ws, "README.md"), "hello\n");
  git("init", "-q");
  git("add", "README.md");
  git("commit", "-qm", "readme");
});
afterEach(() => cleanup());

function git(...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd: ws,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws, GIT_CONFIG_NOSYSTEM: "1" },
  });
}

/** Commit a `.env`, then delete it: gone from the index and the work tree, still in history. Its blob id. */
async function leakIntoHistory(): Promise<string> {
  await writeFile(join(ws, ".env"), `TOKEN=${CANARY}\n`);
  git("add", "-f", ".env");
  git("commit", "-qm", "env");
  const blob = git("rev-parse", "HEAD:.env").trim();
  git("rm", "-q", ".env");
  git("commit", "-qm", "gone");
  return blob;
}

interface Seen {
  readonly asked: boolean;
  readonly errorKind: string | undefined;
  readonly text: string;
}

/** Run one command through a Harness in workspace mode with the sandbox; an approver answers `answer`, or none is set. */
async function runIt(command: string, answer: boolean | "none"): Promise<Seen> {
  const asked: ApprovalRequest[] = [];
  const approver: Approver = {
    decide: async (request) => {
      asked.push(request);
      return answer === true ? { approved: true } : { approved: false, reason: "nobody here" };
    },
  };
  const shell = await createShellTools({ runner: new BubblewrapRunner(), permissionMode: "workspace" });
  try {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "bash", id: "c", arguments: { command } }] },
      { text: "done" },
    ]);
    const harness = new Harness({
      model,
      tools: shell.tools,
      hooks: shell.hooks,
      workspace: ws,
      ...(answer === "none" ? {} : { approver }),
    });
    const { messages } = await harness.run({ prompt: "go" });
    const result = messages.find((m): m is ToolResultMessage => m.role === "tool" && m.toolCallId === "c");
    if (!result) throw new Error("no result");
    return { asked: asked.length > 0, errorKind: result.errorKind, text: textOf(result.content) };
  } finally {
    await shell.stopAll();
  }
}

function exitCode(seen: Seen): number {
  return (JSON.parse(seen.text) as { exit_code: number }).exit_code;
}

const skip = bwrap.available ? "" : ` — SKIPPED: ${bwrap.reason}`;

describe("history holding a secret, in the sandbox, workspace mode", () => {
  it.skipIf(!bwrap.available)(
    `commands that print it from git's object store ask; refused without an approver${skip}`,
    async () => {
      const blob = await leakIntoHistory();
      for (const command of ["git show HEAD~1:.env", "git log -p", `git cat-file -p ${blob}`]) {
        const seen = await runIt(command, "none");
        expect(seen.errorKind, command).toBeDefined();
        expect(seen.text, command).toMatch(/requires approval and no approver is configured/);
        expect(seen.text, command).not.toContain(CANARY);
        const refused = await runIt(command, false);
        expect(refused.asked, command).toBe(true);
        expect(refused.text, command).not.toContain(CANARY);
      }
    },
  );

  it.skipIf(!bwrap.available)(
    `an approved ask runs in the sandbox and prints what history holds (the check can fail)${skip}`,
    async () => {
      const blob = await leakIntoHistory();
      for (const command of ["git show HEAD~1:.env", "git log -p", `git cat-file -p ${blob}`]) {
        const seen = await runIt(command, true);
        expect(seen.asked, command).toBe(true);
        expect(exitCode(seen), command).toBe(0);
        expect(seen.text, command).toContain(CANARY);
      }
    },
  );

  it.skipIf(!bwrap.available)(
    `commands that print names, counts and messages run unasked${skip}`,
    async () => {
      await leakIntoHistory();
      for (const command of ["git log --oneline", "git status", "git show HEAD --stat"]) {
        const seen = await runIt(command, false);
        expect(seen.asked, command).toBe(false);
        expect(exitCode(seen), command).toBe(0);
        expect(seen.text, command).not.toContain(CANARY);
      }
      // The stat names the deleted file, so these really read history.
      expect((await runIt("git show HEAD --stat", false)).text).toContain(".env");
    },
  );

  it.skipIf(!bwrap.available)(
    `with no secret in history, printing a file from a commit runs unasked${skip}`,
    async () => {
      const seen = await runIt("git show HEAD:README.md", false);
      expect(seen.asked).toBe(false);
      expect(exitCode(seen)).toBe(0);
      expect(seen.text).toContain("hello");
    },
  );
});
