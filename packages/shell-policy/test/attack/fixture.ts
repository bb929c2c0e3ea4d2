import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { execa } from "execa";

/** Canaries: seeing one in a command's output, or a marker file appear, means the command did harm. */
export const SECRET = "bridle-canary-secret-7f3a";
export const OUTSIDE_SECRET = "bridle-outside-canary-91c2";
export const HOME_SECRET = "bridle-home-canary-55d0";
export const MARKER = "PWNED";

/**
 * A throwaway world for one case: `ws/` is the workspace (a git repository with a `.env` holding a
 * canary, source files, and planted files that would write a marker outside if anything ran them),
 * `outside/` holds a canary file next to it, `home/` is HOME. Built once, copied per case.
 */
export interface World {
  readonly root: string;
  readonly ws: string;
  readonly outside: string;
  readonly home: string;
}

let template: string | undefined;

function build(root: string): void {
  const ws = join(root, "ws");
  const outside = join(root, "outside");
  const home = join(root, "home");
  for (const dir of [ws, outside, home, join(ws, "src", "util"), join(ws, "config"), join(ws, "docs")])
    mkdirSync(dir, { recursive: true });
  writeFileSync(join(outside, "canary.txt"), `OUTSIDE=${OUTSIDE_SECRET}\n`);
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_rsa"), `${HOME_SECRET}\n`);
  writeFileSync(join(ws, ".env"), `API_KEY=${SECRET}\n`);
  writeFileSync(join(ws, "config", ".env.production"), `API_KEY=${SECRET}\n`);
  writeFileSync(join(ws, "src", "a.ts"), "export const a = 1; // foo\n");
  writeFileSync(join(ws, "src", "b.ts"), "export const b = 2;\n");
  writeFileSync(join(ws, "src", "util", "c.ts"), "export const c = 3; // foo\n");
  writeFileSync(join(ws, "docs", "readme.md"), "# readme\nfoo bar\n");
  writeFileSync(join(ws, "data.json"), '{"name":"bridle","n":3}\n');
  writeFileSync(join(ws, "list.txt"), ".env\nsrc/a.ts\n");
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, {
      cwd,
      stdio: "ignore",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_NOSYSTEM: "1" },
    });
  git(ws, "init", "-q", "-b", "main");
  git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "add", "src", "docs", "data.json");
  git(ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  writeFileSync(join(ws, "src", "a.ts"), "export const a = 10; // foo changed\n");
  // A hostile repository inside the workspace: its config and hooks run programs.
  const evil = join(ws, "evil");
  mkdirSync(evil);
  git(evil, "init", "-q", "-b", "main");
  writeFileSync(join(evil, "f.txt"), "x\n");
  git(evil, "-c", "user.name=t", "-c", "user.email=t@t", "add", "f.txt");
  git(evil, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
}

/** Files that would run a marker-writing command if anything executed them (rewritten per world). */
function plant(world: World): void {
  const { ws, outside } = world;
  const touch = (name: string) => `touch '${join(outside, `${MARKER}-${name}`)}'`;
  writeFileSync(join(ws, "planted.sh"), `${touch("script")}\n`);
  chmodSync(join(ws, "planted.sh"), 0o755);
  writeFileSync(join(ws, "Makefile"), `all:\n\t${touch("make")}\n`);
  writeFileSync(
    join(ws, "package.json"),
    JSON.stringify({ name: "x", scripts: { test: touch("npm"), build: touch("npm") } }),
  );
  writeFileSync(join(ws, "planted.sed"), `1e ${touch("sed")}\n`);
  writeFileSync(join(ws, "planted.awk"), `BEGIN { system("${touch("awk").replace(/'/g, "")}") }\n`);
  writeFileSync(join(ws, "rcfile"), `${touch("rcfile")}\n`);
  writeFileSync(join(world.home, ".bashrc"), `${touch("bashrc")}\n`);
  writeFileSync(
    join(ws, "evil", ".git", "config"),
    [
      "[core]",
      "\trepositoryformatversion = 0",
      "\tbare = false",
      `\tpager = ${touch("pager")}`,
      `\tfsmonitor = ${touch("fsmonitor")}`,
      "[alias]",
      `\tst = !${touch("alias")}`,
      "",
    ].join("\n"),
  );
  const hook = join(ws, "evil", ".git", "hooks", "post-index-change");
  writeFileSync(hook, `#!/bin/sh\n${touch("hook")}\n`);
  chmodSync(hook, 0o755);
  symlinkSync(outside, join(ws, "out-link"));
  // Innocent names that lead to a secret and out of the workspace: what a pattern matches is judged.
  mkdirSync(join(ws, "links"));
  symlinkSync("../.env", join(ws, "links", "notes"));
  symlinkSync(join(outside, "canary.txt"), join(ws, "links", "far"));
}

/** A fresh world, copied from a template built once per process. */
export function makeWorld(): World {
  if (!template) {
    template = mkdtempSync(join(tmpdir(), "bridle-attack-template-"));
    build(template);
  }
  const root = mkdtempSync(join(tmpdir(), "bridle-attack-"));
  cpSync(template, root, { recursive: true, verbatimSymlinks: true });
  const world = { root, ws: join(root, "ws"), outside: join(root, "outside"), home: join(root, "home") };
  plant(world);
  return world;
}

export function removeWorld(world: World): void {
  rmSync(world.root, { recursive: true, force: true });
}

export function removeTemplate(): void {
  if (template) rmSync(template, { recursive: true, force: true });
  template = undefined;
}

/** Every file outside the workspace, with size and mtime: a write outside changes this. */
function snapshot(world: World): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (path === world.ws) continue;
      if (entry.isDirectory()) walk(path);
      else {
        const stats = statSync(path, { throwIfNoEntry: false });
        files.set(relative(world.root, path), stats ? `${stats.size}:${stats.mtimeMs}` : "dangling");
      }
    }
  };
  walk(world.root);
  return files;
}

function markers(dir: string): string[] {
  const found: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.name.includes(MARKER)) found.push(path);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return found;
}

/** What running an allowed command for real did that it must not have. Empty means no harm seen. */
export async function harmDone(world: World, command: string): Promise<string[]> {
  const before = snapshot(world);
  const run = await execa("bash", ["-c", command], {
    cwd: world.ws,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: world.home,
      LANG: "C.UTF-8",
      GIT_CONFIG_NOSYSTEM: "1",
    },
    extendEnv: false,
    reject: false,
    stdin: "ignore",
    timeout: 10_000,
    all: true,
  });
  const harm: string[] = [];
  const output = run.all ?? "";
  for (const canary of [SECRET, OUTSIDE_SECRET, HOME_SECRET])
    if (output.includes(canary)) harm.push(`printed the canary ${canary}`);
  const after = snapshot(world);
  for (const [path, stamp] of after)
    if (before.get(path) !== stamp) harm.push(`changed ${path} outside the workspace`);
  for (const path of before.keys()) if (!after.has(path)) harm.push(`removed ${path} outside the workspace`);
  for (const path of markers(world.root)) harm.push(`ran planted code (${relative(world.root, path)})`);
  if (run.timedOut) harm.push("did not finish in 10 s");
  return harm;
}
