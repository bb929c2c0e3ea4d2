import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AnyHook, Harness, type Message, textOf } from "@bridle/core";
import { ScriptedModel, type ScriptedTurn } from "@bridle/testing";
import { createFsTools } from "@bridle/tools-fs";
import { createShellTools, LocalRunner } from "@bridle/tools-shell";
import type { HookScriptReport } from "../src/index.js";

/** Writes an executable hook script under `<dir>/.claude/hooks/`, as Claude Code users keep them. */
export async function script(dir: string, name: string, body: string): Promise<string> {
  const folder = join(dir, ".claude", "hooks");
  await mkdir(folder, { recursive: true });
  const path = join(folder, name);
  await writeFile(path, body);
  await chmod(path, 0o755);
  return path;
}

/** A real harness over real fs and bash tools, driven by a scripted model that records what it was sent. */
export async function agent(dir: string, hooks: readonly AnyHook[], turns: ScriptedTurn[]) {
  const shell = await createShellTools({ runner: new LocalRunner() });
  const model = new ScriptedModel(turns);
  const harness = new Harness({
    workspace: dir,
    model,
    tools: [...createFsTools().tools, shell.bash],
    hooks: [...hooks],
    // The person at the keyboard says yes to everything: what stops a call here is the hook scripts.
    approver: { decide: async () => ({ approved: true }) },
  });
  return { model, harness, stop: () => shell.stopAll() };
}

/** The text of what the model was sent in one request. */
export function sentText(messages: readonly Message[] | undefined): string {
  return (messages ?? [])
    .map((message) => (message.role === "system" ? message.content : textOf(message.content)))
    .join("\n");
}

export function reports(): { list: HookScriptReport[]; onReport: (report: HookScriptReport) => void } {
  const list: HookScriptReport[] = [];
  return { list, onReport: (report) => void list.push(report) };
}
