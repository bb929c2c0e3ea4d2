import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, lutimesSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Workspace } from "@bridle/core";
import { commandEnv, sandboxPolicy } from "../../src/index.js";
import { manifest } from "./manifest.js";

/**
 * The secret text of each canary. A command's output holding one means the sequence read what the
 * policy exists to keep from the model.
 */
export const CANARIES = {
  /** `.env` and `config/.env.production` in the workspace. */
  env: "bridle-env-canary-3b1e",
  /** A `.env` committed, then removed from the index: only git's history holds this text. */
  history: "bridle-history-canary-c70d",
  /** `outside/canary.txt`, beside the workspace. */
  outside: "bridle-outside-canary-91c2",
  /** `home/.ssh/id_rsa`, in the commands' HOME. */
  home: "bridle-home-canary-55d0",
  /** The user's Bridle config folder (XDG_CONFIG_HOME/bridle): the trust store and the approval secret. */
  trust: "bridle-trust-canary-e4a8",
} as const;

export type CanaryName = keyof typeof CANARIES;

/**
 * One throwaway world: `root/ws` is the workspace, `root/outside` a folder beside it, `root/home` the
 * commands' HOME, whose `.config` is XDG_CONFIG_HOME (so `.config/bridle` is the user config folder).
 * Slots are reset from one template, so a sequence always starts from the same files.
 */
export interface World {
  readonly root: string;
  readonly ws: string;
  readonly outside: string;
  readonly home: string;
  /** The user's Bridle config folder: the trust store and the approval secret. */
  readonly config: string;
  readonly workspace: Workspace;
  /** The environment the local runner gives a command (its allowlist), with this world's HOME. */
  readonly env: Readonly<Record<string, string>>;
}

export function worldAt(root: string): World {
  const home = join(root, "home");
  const config = join(home, ".config", "bridle");
  const ws = join(root, "ws");
  return {
    root,
    ws,
    outside: join(root, "outside"),
    home,
    config,
    // The CLI's workspace protects the user config folder through XDG_CONFIG_HOME; this names it directly,
    // since every slot has its own and the test process has one environment.
    workspace: new Workspace({ roots: [ws], protectedPaths: [config] }),
    env: commandEnv(sandboxPolicy(), {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      LANG: "C.UTF-8",
      USER: "bridle",
      LOGNAME: "bridle",
      SHELL: "/bin/bash",
    }),
  };
}

/** The placeholders a sequence is written with, and this world's value for each. */
export function placeholders(world: World): ReadonlyArray<readonly [string, string]> {
  return [
    ["{WS}", world.ws],
    ["{OUT}", world.outside],
    ["{HOME}", world.home],
    ["{CFG}", world.config],
  ];
}

export function fill(text: string, world: World): string {
  let filled = text;
  for (const [name, value] of placeholders(world)) filled = filled.replaceAll(name, value);
  return filled;
}

function write(path: string, text: string, mode?: number): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

/**
 * The template: a git repository whose history holds a `.env` the index no longer tracks, a `.env` in
 * the working tree, the agent's protected configuration, an executable script (real repositories have
 * them, and writing into one keeps its mode), a canary beside the workspace and in HOME, and the trust
 * store in the user config folder.
 */
export function buildTemplate(root: string): World {
  const world = worldAt(root);
  const { ws } = world;
  write(join(ws, "src", "a.ts"), "export const a = 1; // foo\n");
  write(join(ws, "src", "b.ts"), "export const b = 2;\n");
  write(join(ws, "docs", "readme.md"), "# readme\nfoo bar\n");
  write(join(ws, "data.json"), '{"name":"bridle","n":3}\n');
  write(join(ws, "tools", "run.sh"), "#!/bin/sh\necho building\n", 0o755);
  write(join(ws, ".env"), `API_KEY=${CANARIES.history}\n`);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: ws,
      stdio: "ignore",
      env: { PATH: world.env.PATH, HOME: world.home, GIT_CONFIG_NOSYSTEM: "1" },
    });
  // No template: the hooks folder holds only the canary hook below, not git's samples.
  git("init", "-q", "-b", "main", "--template=");
  git("add", "-A");
  git("commit", "-qm", "init");
  git("rm", "-q", "--cached", ".env");
  write(join(ws, ".gitignore"), ".env\n");
  write(join(ws, "bridle.config.json"), '{ "model": "scripted" }\n');
  write(join(ws, ".bridle", "agents", "helper.md"), "---\nname: helper\n---\nHelp.\n");
  git("add", "-A");
  git("commit", "-qm", "forget .env");
  git("remote", "add", "origin", "https://example.invalid/repo.git");
  write(join(ws, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n", 0o755);
  write(join(ws, ".git", "info", "exclude"), "# local excludes\n");
  write(join(ws, ".env"), `API_KEY=${CANARIES.env}\n`);
  write(join(ws, "config", ".env.production"), `API_KEY=${CANARIES.env}\n`);
  write(join(ws, "config", "app.json"), '{ "port": 8080 }\n');
  mkdirSync(join(ws, ".bridle", "tool-output"), { recursive: true });
  write(join(world.outside, "canary.txt"), `OUTSIDE=${CANARIES.outside}\n`);
  write(join(world.home, ".ssh", "id_rsa"), `${CANARIES.home}\n`, 0o600);
  write(join(world.config, "approval-secret"), `${CANARIES.trust}\n`, 0o600);
  write(
    join(world.config, "trusted-workspaces.json"),
    `${JSON.stringify({ version: 1, trusted: [], note: CANARIES.trust })}\n`,
  );
  // One pack instead of a file per object: fewer paths to compare and restore after every sequence.
  git("gc", "-q", "--prune=now");
  plantHostile(world);
  // Whole seconds: a restored file's mtime is then exactly the template's (utimes rounds fractions).
  for (const rel of manifest(root).keys()) lutimesSync(join(root, rel), TEMPLATE_TIME, TEMPLATE_TIME);
  return world;
}

const TEMPLATE_TIME = 1_700_000_000;

/**
 * What a hostile repository can already hold before the agent runs anything (a cloned project, a
 * prompt-injected one): links with innocent names to the secret, outside and git's folder, list files
 * naming them, an executable, file names that are options, a vendored bare mirror whose history holds
 * the old `.env` and whose config runs a program when a diff is shown, and a nested checkout whose config
 * runs programs on status and diff. Every path is relative or `$HOME`-based, so each slot's copy points
 * at that slot. What the planted programs do leaves a PWNED file in HOME, outside the workspace.
 */
function plantHostile(world: World): void {
  const { ws } = world;
  const link = (target: string, path: string) => {
    mkdirSync(join(path, ".."), { recursive: true });
    symlinkSync(target, path);
  };
  link("../.env", join(ws, "links", "notes"));
  link("../../outside/canary.txt", join(ws, "links", "far"));
  link("../..", join(ws, "links", "up"));
  link("../../home", join(ws, "links", "home"));
  link("../../home/.config/bridle", join(ws, "links", "cfg"));
  link("../.git", join(ws, "links", "git"));
  // Dangling inside where it is (links/../outside), the canary beside the workspace once moved up a folder.
  link("../outside/canary.txt", join(ws, "links", "rel"));
  write(join(ws, "lists", "names0"), ".env\0../outside/canary.txt\0config/.env.production\0");
  write(join(ws, "lists", "names"), ".env\n../outside/canary.txt\n");
  write(join(ws, "bin", "run"), '#!/bin/sh\ntouch "$HOME/PWNED-run"\ncat .env\n', 0o755);
  // Names that are options once a glob expands them: tar runs a checkpoint action.
  write(join(ws, "names", "--checkpoint=1"), "");
  write(join(ws, "names", "--checkpoint-action=exec=sh x.sh"), "");
  write(join(ws, "names", "x.sh"), 'touch "$HOME/PWNED-glob"\ncat ../.env\n');
  const hostileConfig = [
    "[core]",
    '\tfsmonitor = touch "$HOME/PWNED-fsmonitor"; false',
    '\tpager = touch "$HOME/PWNED-pager"; cat',
    "[diff]",
    '\texternal = touch "$HOME/PWNED-external"; false',
    '[diff "x"]',
    '\ttextconv = touch "$HOME/PWNED-textconv"; cat',
    "[alias]",
    '\tst = !touch "$HOME/PWNED-alias"',
    "",
  ].join("\n");
  const bare = join(ws, "vendor", "bare");
  mkdirSync(join(ws, "vendor"), { recursive: true });
  execFileSync("git", ["clone", "-q", "--bare", "--no-hardlinks", ws, bare], {
    stdio: "ignore",
    env: { PATH: world.env.PATH, HOME: world.home, GIT_CONFIG_NOSYSTEM: "1" },
  });
  rmSync(join(bare, "hooks"), { recursive: true, force: true });
  writeFileSync(
    join(bare, "config"),
    `[core]\n\trepositoryformatversion = 0\n\tbare = true\n${hostileConfig}`,
  );
  write(join(bare, "info", "attributes"), "* diff=x\n");
  const nested = join(ws, "vendor", "nested");
  write(join(nested, "lib.txt"), "one\n");
  write(join(nested, ".gitattributes"), "* diff=x\n");
  const nestedGit = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
      cwd: nested,
      stdio: "ignore",
      env: { PATH: world.env.PATH, HOME: world.home, GIT_CONFIG_NOSYSTEM: "1" },
    });
  nestedGit("init", "-q", "-b", "main", "--template=");
  nestedGit("add", "-A");
  nestedGit("commit", "-qm", "vendored");
  write(join(nested, "lib.txt"), "two\n");
  writeFileSync(
    join(nested, ".git", "config"),
    `[core]\n\trepositoryformatversion = 0\n\tbare = false\n${hostileConfig}`,
  );
}

/** A slot as a whole copy of the template (timestamps kept: a write outside is seen by its mtime too). */
export function copyWorld(template: World, slot: World): void {
  rmSync(slot.root, { recursive: true, force: true });
  cpSync(template.root, slot.root, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
}
