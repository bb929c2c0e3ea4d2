import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CD_RULE } from "../src/cd.js";
import { COPIED_TREE_RULE, DESTINATION_RULE } from "../src/created.js";
import type { ClassRule, Example } from "../src/examples.js";
import { REPOSITORY_RULE } from "../src/git-discovery.js";
import { GIT_FORM_RULE } from "../src/git-forms.js";
import { HISTORY_RULE } from "../src/git-history.js";
import { GIT_OPTION_RULE } from "../src/git-options.js";
import { checkCommand } from "../src/index.js";
import { LINK_RULE } from "../src/links.js";
import { CREATED_FOLDER_RULE, PROTECTED_RULE } from "../src/paths.js";
import { FILE_LIST_RULE, OPTION_PATH_RULE } from "../src/specs.js";
import { ENVIRONMENT_SETTERS } from "../src/wrappers.js";
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
  "copies, moves and links into a folder": DESTINATION_RULE,
  "folders copied or moved whole": COPIED_TREE_RULE,
  "folders a write creates on its way": CREATED_FOLDER_RULE,
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
  // For the copy and move classes: the agent's folder, a script, a vendored checkout (vendor/nested is
  // a repository), a tree shaped like the agent's folder and a plain data folder.
  for (const dir of [".bridle/tmp", "tools", "vendor/nested", "tree/agents", "data"])
    mkdirSync(join(ws, dir), { recursive: true });
  writeFileSync(join(ws, "tools", "run.sh"), "echo run\n");
  mkdirSync(join(ws, ".bridle", "agents"));
  writeFileSync(join(ws, ".bridle", "agents", "a.md"), "# agent\n");
  writeFileSync(join(ws, "tree", "agents", "x.md"), "# agent\n");
  writeFileSync(join(ws, "data", "x.txt"), "x\n");
  writeFileSync(join(ws, "vendor", "nested", "f.txt"), "f\n");
  git(join(ws, "vendor", "nested"), extras, "init", "-q", "-b", "main");
  git(join(ws, "vendor", "nested"), extras, "add", "f.txt");
  git(join(ws, "vendor", "nested"), extras, "commit", "-qm", "one");
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

describe("writes that create protected paths are real harm when run without the policy", () => {
  // The attack generator's shrunk sequences: each, run for real, creates what the policy now refuses.
  it.each([
    ["cp tools/run.sh .bridle", ".bridle/run.sh"],
    ["mv list.txt .bridle", ".bridle/list.txt"],
    ["cp -t .bridle src/a.ts", ".bridle/a.ts"],
    ["cp -a vendor M", "M/nested/.git/HEAD"],
    ["mv vendor L", "L/nested/.git/HEAD"],
    ["cp -r tree/. .bridle", ".bridle/agents/x.md"],
    ["mkdir -p bridle.config.ts/x", "bridle.config.ts"],
  ])("%s creates %s", async (command, created) => {
    const world = exampleWorld();
    try {
      expect((await checkCommand(command, { workspace: world.ws })).decision).not.toBe("allow");
      expect(existsSync(join(world.ws, created))).toBe(false);
      execFileSync("bash", ["-c", command], { cwd: world.ws, stdio: "ignore" });
      expect(existsSync(join(world.ws, created))).toBe(true);
    } finally {
      removeWorld(world);
    }
  });
});

describe("a copied tree too large to walk", () => {
  it("asks, where a small one runs unasked", async () => {
    const world = exampleWorld();
    try {
      const big = join(world.ws, "big");
      mkdirSync(big);
      for (let i = 0; i < 10_050; i++) writeFileSync(join(big, `f${i}`), "");
      const copy = await checkCommand("cp -r big b2", { workspace: world.ws });
      expect(copy.decision).toBe("ask");
      expect(copy.reasons.join(" ")).toContain("too large to check for protected paths");
      expect((await checkCommand("cp -r data d2", { workspace: world.ws })).decision).toBe("allow");
    } finally {
      removeWorld(world);
    }
  });
});

describe("commands that always ask keep protected destinations firm", () => {
  // ln and install ask anyway; a saved allow rule lifts that, but never a write to a protected path.
  const rules = [
    { decision: "allow" as const, argv: ["ln", "-s"] },
    { decision: "allow" as const, argv: ["install"] },
    { decision: "allow" as const, argv: ["rsync", "-a"] },
  ];
  it.each([
    ["ln -s src/a.ts .bridle", "ask"],
    ["ln -s src/a.ts", "allow"],
    ["ln -s src/a.ts docs", "allow"],
    ["install -t .bridle src/a.ts", "ask"],
    ["install -D src/a.ts bridle.config.mjs/a.ts", "ask"],
    ["install src/a.ts docs", "allow"],
    ["install -s src/a.ts docs", "ask"],
    ["rsync -a tree/ .bridle", "ask"],
    ["rsync -a vendor M", "ask"],
    ["rsync -a src/a.ts .git/hooks/pre-commit", "ask"],
    ["rsync -a docs/ backup", "allow"],
    ["rsync -a docs host:backup", "allow"],
    ["rsync -a host:run.sh .bridle", "ask"],
    ["rsync -aR tree/agents/x.md .bridle/tmp/..", "ask"],
    ["rsync -aR docs/readme.md .bridle/tmp", "allow"],
  ])("%s: %s", async (command, expected) => {
    const world = exampleWorld();
    try {
      const result = await checkCommand(command, { workspace: world.ws, rules });
      expect(result.decision, result.reasons.join(" | ")).toBe(expected);
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
