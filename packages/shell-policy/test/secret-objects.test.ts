import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCommand } from "../src/index.js";

// The mark a sandboxed runner acts on: which verdicts can print a secret out of git's object store.

let root: string;
let leaked: string;
let clean: string;
let blob: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, GIT_CONFIG_NOSYSTEM: "1" },
  });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "bridle-secret-objects-"));
  leaked = join(root, "leaked");
  clean = join(root, "clean");
  for (const ws of [leaked, clean]) {
    mkdirSync(ws);
    git(ws, "init", "-q");
    writeFileSync(join(ws, "README.md"), "hello\n");
    git(ws, "add", "README.md");
    git(ws, "commit", "-qm", "readme");
  }
  // Committed, then deleted: gone from the index and the work tree, still in history.
  writeFileSync(join(leaked, ".env"), "TOKEN=canary\n");
  git(leaked, "add", "-f", ".env");
  git(leaked, "commit", "-qm", "env");
  blob = git(leaked, "rev-parse", "HEAD:.env").trim();
  git(leaked, "rm", "-q", ".env");
  git(leaked, "commit", "-qm", "gone");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const check = (command: string, workspace: string) => checkCommand(command, { workspace });

describe("reads_secret_objects", () => {
  it("marks the history readers of a repository whose history holds a secret", async () => {
    for (const command of ["git show HEAD~1:.env", "git log -p", "git show HEAD", "git diff HEAD~2"]) {
      const verdict = await check(command, leaked);
      expect(verdict.decision, command).not.toBe("allow");
      expect(verdict.reads_secret_objects, command).toBe(true);
      expect(verdict.reasons.join("\n"), command).toMatch(/history holds \.env/);
    }
  });

  it("marks cat-file by object id even in a repository with a clean history", async () => {
    const verdict = await check(`git cat-file -p ${blob}`, clean);
    expect(verdict.reads_secret_objects).toBe(true);
    expect(verdict.reasons.join("\n")).toMatch(/prints objects by id/);
    expect((await check("git cat-file --batch-all-objects --batch", clean)).reads_secret_objects).toBe(true);
  });

  it("marks a content printer in a repository that tracks a secret", async () => {
    writeFileSync(join(clean, "id_rsa"), "key\n");
    git(clean, "add", "-f", "id_rsa");
    try {
      const verdict = await check("git diff --cached", clean);
      expect(verdict.reads_secret_objects).toBe(true);
      expect(verdict.reasons.join("\n")).toMatch(/tracks id_rsa/);
    } finally {
      git(clean, "rm", "-q", "--cached", "id_rsa");
      rmSync(join(clean, "id_rsa"));
    }
  });

  it("marks a history reader of a repository named by --git-dir, whose history was not checked", async () => {
    const verdict = await check(`git --git-dir=${join(leaked, ".git")} show HEAD~1:.env`, clean);
    expect(verdict.reads_secret_objects).toBe(true);
  });

  it("leaves the field out where nothing prints objects' contents, keeping the JSON as it was", async () => {
    for (const [command, workspace] of [
      ["git log --oneline", leaked],
      ["git status", leaked],
      ["git show HEAD --stat", leaked],
      ["git cat-file -t HEAD", leaked],
      ["git show HEAD:README.md", clean],
      ["git log -p", clean],
      ["cat README.md", leaked],
    ] as const) {
      const verdict = await check(command, workspace);
      expect(verdict.decision, command).toBe("allow");
      expect("reads_secret_objects" in verdict, command).toBe(false);
      expect(Object.keys(verdict), command).toEqual([
        "command",
        "decision",
        "reasons",
        "subcommands",
        "suggested_rule",
      ]);
    }
  });

  it("marks a whole line when one of its commands reads a secret object", async () => {
    const verdict = await check("git status && git log --oneline | head; git show HEAD~1:.env", leaked);
    expect(verdict.reads_secret_objects).toBe(true);
  });
});
