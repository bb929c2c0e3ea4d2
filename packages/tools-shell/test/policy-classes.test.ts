import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkCommand } from "../src/index.js";
import { CD_RULE } from "../src/policy/cd.js";
import type { ClassRule, Example } from "../src/policy/examples.js";
import { REPOSITORY_RULE } from "../src/policy/git-discovery.js";
import { GIT_FORM_RULE } from "../src/policy/git-forms.js";
import { HISTORY_RULE } from "../src/policy/git-history.js";
import { GIT_OPTION_RULE } from "../src/policy/git-options.js";
import { LINK_RULE } from "../src/policy/links.js";
import { PROTECTED_RULE } from "../src/policy/paths.js";
import { FILE_LIST_RULE, OPTION_PATH_RULE } from "../src/policy/specs.js";
import { ENVIRONMENT_SETTERS } from "../src/policy/wrappers.js";
import { harmDone, makeWorld, removeTemplate, removeWorld, SECRET, type World } from "./attack/fixture.js";

// The strict policy's classes (issue 33), each closed by one rule that carries its examples. Every
// example is checked in a fresh example world; one the policy allows is then run there for real and must
// do no harm (no canary printed, nothing outside changed, no planted code run).

const RULES: Readonly<Record<string, ClassRule>> = {
  "cd and pushd, judged logically": CD_RULE,
  "programs that set the environment of what they run": ENVIRONMENT_SETTERS,
  "options whose value is a file of file names": FILE_LIST_RULE,
  "option values that name files": OPTION_PATH_RULE,
  "git's option tables": GIT_OPTION_RULE,
  "the repository git would use": REPOSITORY_RULE,
  "git sub-commands judged from all their arguments": GIT_FORM_RULE,
  "links made earlier in the line": LINK_RULE,
  "core's protected paths": PROTECTED_RULE,
  "history holding a secret": HISTORY_RULE,
};

const gitEnv = (home: string) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
});

function git(cwd: string, home: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    stdio: "ignore",
    env: gitEnv(home),
  });
}

/**
 * What the examples need beyond the attack suite's world, built once and copied into each world's
 * workspace: `up` → deep/er and `src/parent` → `..` (links), `evil/inner/.git` and `sub/.git` (empty
 * folders git passes over), `wt/.git` (a gitfile naming evil's repository), and `hist/`, a repository
 * whose history holds a `.env` that is gone from its index and work tree.
 */
let extras: string | undefined;

function extrasTemplate(): string {
  if (extras) return extras;
  extras = mkdtempSync(join(tmpdir(), "bridle-classes-extras-"));
  const ws = join(extras, "ws");
  for (const dir of ["deep/er", "src", "evil/inner/.git", "sub/.git", "wt", "hist/sub/.git"])
    mkdirSync(join(ws, dir), { recursive: true });
  symlinkSync("deep/er", join(ws, "up"));
  symlinkSync("..", join(ws, "src", "parent"));
  writeFileSync(join(ws, "wt", ".git"), "gitdir: ../evil/.git\n");
  const hist = join(ws, "hist");
  git(hist, extras, "init", "-q", "-b", "main");
  writeFileSync(join(hist, "a.txt"), "a\n");
  writeFileSync(join(hist, ".env"), `KEY=${SECRET}\n`);
  git(hist, extras, "add", "a.txt", ".env");
  git(hist, extras, "commit", "-qm", "one");
  git(hist, extras, "rm", "-q", ".env");
  git(hist, extras, "commit", "-qm", "two");
  return extras;
}

function exampleWorld(): World {
  const world = makeWorld();
  cpSync(join(extrasTemplate(), "ws"), world.ws, { recursive: true, verbatimSymlinks: true });
  return world;
}

afterAll(() => {
  removeTemplate();
  if (extras) rmSync(extras, { recursive: true, force: true });
});

function matches(decision: string, expected: Example[1]): boolean {
  return expected === "block" ? decision !== "allow" : decision === expected;
}

describe("the strict policy's classes", () => {
  for (const [name, rule] of Object.entries(RULES)) {
    describe(name, () => {
      it("has examples of both kinds or of blocking only", () => {
        expect(rule.examples.length).toBeGreaterThanOrEqual(8);
        expect(rule.examples.some(([, expected]) => expected !== "allow")).toBe(true);
      });
      it.each(rule.examples.map((example): [string, Example] => [example[0], example]))(
        "%s",
        async (_label, [command, expected]) => {
          const world = exampleWorld();
          try {
            const result = await checkCommand(command, { workspace: world.ws });
            expect(
              matches(result.decision, expected),
              `${result.decision} (expected ${expected}): ${result.reasons.join(" | ")}`,
            ).toBe(true);
            if (result.decision === "allow") expect(await harmDone(world, command)).toEqual([]);
          } finally {
            removeWorld(world);
          }
        },
      );
    });
  }
});

describe("blocked examples are real harm when run without the policy", () => {
  // Each of these was allowed before its class was closed: run for real, it does what the policy stops.
  it.each([
    ["cd up/../.. && cat outside/canary.txt", "printed the canary"],
    ["mv src/parent p && cat p/outside/canary.txt", "printed the canary"],
    [
      "mkdir -p src/x src/outside && touch src/outside/canary.txt && cd src/x && cp -s ../outside/canary.txt L && mv L ../.. && cd ../.. && cat L",
      "printed the canary",
    ],
    ["git -C hist log -p", "printed the canary"],
    ["cd hist/sub && git log -p", "printed the canary"],
    ["git -C hist cat-file --batch-all-objects --batch", "printed the canary"],
    ["printf '.env\\0' > l0 && sort --files0-from=l0", "printed the canary"],
    ["cd evil/inner && git status", "ran planted code"],
    ["cd wt && git status", "ran planted code"],
  ])("%s", async (command, harm) => {
    const world = exampleWorld();
    try {
      expect((await checkCommand(command, { workspace: world.ws })).decision).not.toBe("allow");
      expect((await harmDone(world, command)).join("\n")).toContain(harm);
    } finally {
      removeWorld(world);
    }
  });
});

describe("the history check", () => {
  it("sees a secret committed after an earlier check of the same repository", async () => {
    const world = exampleWorld();
    try {
      const check = async () => (await checkCommand("git log -p -1", { workspace: world.ws })).decision;
      expect(await check()).toBe("allow");
      writeFileSync(join(world.ws, "id_rsa"), "key\n");
      git(world.ws, world.home, "add", "-f", "id_rsa");
      git(world.ws, world.home, "commit", "-qm", "key");
      git(world.ws, world.home, "rm", "-q", "--cached", "id_rsa");
      git(world.ws, world.home, "commit", "-qm", "gone");
      expect(await check()).toBe("ask");
    } finally {
      removeWorld(world);
    }
  });
});
