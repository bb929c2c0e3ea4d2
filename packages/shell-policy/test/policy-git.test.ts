import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, describe, expect, it } from "vitest";
import { checkCommand } from "../src/index.js";

// git obeys the repository's own config and hooks: a read-only git command is allowed only when the
// repository (a real one, made here) holds nothing that runs a program.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
  });
}

async function repo(...init: string[]): Promise<string> {
  const { dir, cleanup } = await tempWorkspace("bridle-policy-git-");
  cleanups.push(cleanup);
  git(dir, "init", "-q", "-b", "main", ...init);
  writeFileSync(join(dir, "a.txt"), "a\n");
  git(dir, "add", "a.txt");
  git(dir, "commit", "-qm", "init");
  return dir;
}

const decide = async (command: string, dir: string) =>
  (await checkCommand(command, { workspace: dir })).decision;

describe("git and the repository's own configuration", () => {
  it("allows read-only git in a plain repository, index v4 and SHA-256 ones included", async () => {
    for (const init of [[], ["--object-format=sha256"]]) {
      const dir = await repo(...init);
      for (const command of ["git status", "git diff", "git log -p -1", "git show HEAD"])
        expect(await decide(command, dir), `${init} ${command}`).toBe("allow");
      git(dir, "update-index", "--index-version", "4");
      expect(await decide("git status", dir), "index v4").toBe("allow");
    }
  });

  it.each([
    ["core", "pager", "touch /tmp/x"],
    ["core", "fsmonitor", "touch /tmp/x"],
    ["core", "sshCommand", "touch /tmp/x"],
    ["core", "editor", "touch /tmp/x"],
    ["core", "worktree", "/"],
    ["alias", "st", "!touch /tmp/x"],
    ["diff", "external", "touch"],
    ['diff "x"', "textconv", "touch"],
    ['diff "x"', "command", "touch"],
    ['filter "x"', "clean", "touch"],
    ['filter "lfs"', "process", "sh -c id"],
    ["include", "path", "../evil.cfg"],
    ['includeIf "gitdir:/"', "path", "../evil.cfg"],
    ['pager "log"', "", "touch"],
    ["log", "showSignature", "true"],
    ["gpg", "program", "touch"],
    ['remote "origin"', "uploadpack", "touch"],
    ["extensions", "partialClone", "origin"],
    ["trace2", "eventTarget", "/tmp/x"],
    ["http", "sslKeyLogFile", "/tmp/x"],
  ])("asks when the config sets [%s] %s", async (section, key, value) => {
    const dir = await repo();
    appendFileSync(join(dir, ".git", "config"), `[${section}]\n\t${key || "log"} = ${value}\n`);
    expect(await decide("git log -1", dir)).toBe("ask");
    expect(await decide("git status", dir)).toBe("ask");
  });

  it("allows the values git lfs install --local writes, and a husky hooks path", async () => {
    const dir = await repo();
    appendFileSync(
      join(dir, ".git", "config"),
      '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n[core]\n\thooksPath = .husky/_\n',
    );
    mkdirSync(join(dir, ".husky", "_"), { recursive: true });
    writeFileSync(join(dir, ".husky", "_", "pre-commit"), "#!/bin/sh\n");
    expect(await decide("git status", dir)).toBe("allow");
    writeFileSync(join(dir, ".husky", "_", "post-index-change"), "#!/bin/sh\n");
    expect(await decide("git status", dir)).toBe("ask");
  });

  it("asks when a post-index-change hook exists (git status writes the index)", async () => {
    const dir = await repo();
    const hook = join(dir, ".git", "hooks", "post-index-change");
    writeFileSync(hook, "#!/bin/sh\ntouch ../PWNED\n");
    chmodSync(hook, 0o755);
    expect(await decide("git status", dir)).toBe("ask");
  });

  it("asks when the repository has a submodule (a gitlink), or a .gitmodules file", async () => {
    const dir = await repo();
    const head = git(dir, "rev-parse", "HEAD").trim();
    git(dir, "update-index", "--add", "--cacheinfo", `160000,${head},sub`);
    expect(await decide("git status", dir)).toBe("ask");
    const other = await repo();
    writeFileSync(join(other, ".gitmodules"), "");
    expect(await decide("git diff", other)).toBe("ask");
  });

  it("asks on a config line it cannot parse and on an index it cannot read", async () => {
    const dir = await repo();
    appendFileSync(join(dir, ".git", "config"), "[core\n");
    expect(await decide("git status", dir)).toBe("ask");
    const other = await repo();
    writeFileSync(join(other, ".git", "index"), "DIRC garbage");
    expect(await decide("git status", other)).toBe("ask");
  });

  it("finds the repository the way git does: a .git file, a bare repository, a parent folder", async () => {
    const dir = await repo();
    const bare = join(dir, "bare.git");
    git(dir, "init", "-q", "--bare", bare);
    appendFileSync(join(bare, "config"), "[core]\n\tpager = touch /tmp/x\n");
    expect(await decide("cd bare.git && git log", dir)).toBe("ask");
    const linked = join(dir, "linked");
    mkdirSync(linked);
    writeFileSync(join(linked, ".git"), `gitdir: ${bare}\n`);
    expect(await decide("git -C linked log", dir)).toBe("ask");
    mkdirSync(join(dir, "deep", "er"), { recursive: true });
    expect(await decide("git -C deep/er log", dir)).toBe("allow");
  });

  it("asks when the repository tracks a secret and the command prints contents", async () => {
    const dir = await repo();
    writeFileSync(join(dir, ".env"), "KEY=x\n");
    git(dir, "add", "-f", ".env");
    git(dir, "commit", "-qm", "oops");
    for (const command of ["git show HEAD", "git log -p", "git diff HEAD~1", "git grep KEY"])
      expect(await decide(command, dir), command).toBe("ask");
    for (const command of ["git status", "git log --oneline", "git ls-files"])
      expect(await decide(command, dir), command).toBe("allow");
  });
});
