import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  type AnyHook,
  type AnyTool,
  type Approver,
  Harness,
  type RunEvent,
  type RunResult,
} from "@bridle/core";
import { collectEvents, ScriptedModel, type ScriptedTurn } from "@bridle/testing";
import { createFsTools } from "@bridle/tools-fs";
import { createShellTools, type ShellTools, type ShellToolsOptions } from "@bridle/tools-shell";
import { type CodingOverlay, createCodingOverlay } from "../src/index.js";

/** A temp folder with these files; `git` makes it a repository with one commit of them. */
export async function tempRepo(files: Record<string, string>, options: { git?: boolean } = {}) {
  const dir = await mkdtemp(join(tmpdir(), "bridle-coding-"));
  await writeFiles(dir, files);
  if (options.git !== false) {
    gitIn(dir, "init", "-q", "-b", "main");
    gitIn(dir, "add", "-A");
    gitIn(dir, "commit", "-q", "-m", "start");
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

export function gitIn(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=test", "-c", "user.email=test@example.com", ...args], {
    cwd: dir,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    encoding: "utf8",
  });
}

export const approveAll: Approver = { decide: async () => ({ approved: true }) };

export interface Agent {
  readonly overlay: CodingOverlay;
  readonly shell: ShellTools;
  readonly model: ScriptedModel;
  run(prompt: string): Promise<{ events: RunEvent[]; result: RunResult }>;
  close(): Promise<void>;
}

/** A harness as the CLI composes it: fs tools, bash, and the coding overlay over one shell environment. */
export async function codingAgent(
  dir: string,
  script: readonly ScriptedTurn[],
  options: {
    approver?: Approver;
    repairAttempts?: number;
    extraTools?: AnyTool[];
    readOnlyTools?: string[];
    shell?: ShellToolsOptions;
  } = {},
): Promise<Agent> {
  const shell = await createShellTools(options.shell);
  const overlay = await createCodingOverlay({
    workspace: dir,
    shell: shell.environment,
    ...(options.repairAttempts !== undefined ? { repairAttempts: options.repairAttempts } : {}),
    ...(options.readOnlyTools ? { readOnlyTools: options.readOnlyTools } : {}),
  });
  const model = new ScriptedModel([...script]);
  const hooks: AnyHook[] = [...overlay.hooks, ...shell.hooks];
  const harness = new Harness({
    model,
    tools: [...createFsTools().tools, shell.bash, ...overlay.tools, ...(options.extraTools ?? [])],
    hooks,
    system: overlay.instructions,
    workspace: dir,
    approver: options.approver ?? approveAll,
    limits: { maxModelRequests: 20, maxToolCalls: 60 },
  });
  return {
    overlay,
    shell,
    model,
    run: async (prompt) => {
      const stream = harness.stream({ prompt });
      const events = await collectEvents(stream);
      return { events, result: await stream.result };
    },
    close: () => shell.stopAll(),
  };
}

export function call(name: string, args: Record<string, unknown>): ScriptedTurn {
  return { toolCalls: [{ name, arguments: args }] };
}

/**
 * Puts a `git` on PATH (for this process and what it starts) that notes each call's arguments before
 * running the real one; `count(word)` is how many calls so far had `word` among them. `restore` undoes it.
 */
export async function gitCallLog(): Promise<{
  count(word: string): Promise<number>;
  restore(): Promise<void>;
}> {
  const shim = await mkdtemp(join(tmpdir(), "bridle-git-shim-"));
  const log = join(shim, "calls.log");
  await writeFile(log, "");
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  await writeFile(join(shim, "git"), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  await chmod(join(shim, "git"), 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${shim}:${path}`;
  return {
    count: async (word) =>
      (await readFile(log, "utf8")).split("\n").filter((line) => line.split(" ").includes(word)).length,
    restore: async () => {
      process.env.PATH = path;
      await rm(shim, { recursive: true, force: true });
    },
  };
}
