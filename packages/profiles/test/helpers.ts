import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type AnyTool, type ToolCallEnv, ToolFailure, type ToolOutput, Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { createFsTools, type FsToolkit } from "@bridle/tools-fs";
import { createShellTools, LocalRunner, type ShellTools } from "@bridle/tools-shell";
import { afterEach, expect } from "vitest";
import { type EditFormat, type ProfileName, profileTools } from "../src/index.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

export interface Fixture {
  readonly dir: string;
  readonly fs: FsToolkit;
  readonly shell: ShellTools;
  /** The profile's tools, by name. */
  tools(profile: ProfileName, editFormat: EditFormat): Map<string, AnyTool>;
  /** Call a tool as a run does: arguments through its schema first. */
  call(tool: AnyTool | undefined, args: Record<string, unknown>): Promise<ToolOutput>;
  fail(tool: AnyTool | undefined, args: Record<string, unknown>): Promise<ToolFailure>;
  files(tree: Record<string, string>): Promise<void>;
}

export async function fixture(): Promise<Fixture> {
  const temp = await tempWorkspace("bridle-profiles-");
  cleanups.push(temp.cleanup);
  const dir = join(temp.dir, "ws");
  await mkdir(dir);
  const workspace = new Workspace({ roots: [dir] });
  const fs = createFsTools();
  const shell = await createShellTools({ runner: new LocalRunner() });
  cleanups.push(() => shell.stopAll());
  const context = (): ToolCallEnv => ({
    signal: new AbortController().signal,
    workspace,
    runId: "run-1",
    toolCallId: `call-${Math.random()}`,
    progress: () => {},
  });
  const call = async (tool: AnyTool | undefined, args: Record<string, unknown>) => {
    if (!tool) throw new Error("no such tool in this profile");
    const parsed = tool.inputSchema.safeParse(args);
    if (!parsed.success) throw new ToolFailure("InvalidInput", parsed.error.message);
    return tool.execute(parsed.data, context());
  };
  return {
    dir,
    fs,
    shell,
    tools: (profile, editFormat) =>
      new Map(profileTools({ profile, editFormat, fs, bash: shell.bash }).map((tool) => [tool.name, tool])),
    call,
    async fail(tool, args) {
      try {
        await call(tool, args);
      } catch (error) {
        expect(error).toBeInstanceOf(ToolFailure);
        return error as ToolFailure;
      }
      throw new Error("the call did not fail");
    },
    async files(tree) {
      for (const [path, content] of Object.entries(tree)) {
        const absolute = join(dir, path);
        await mkdir(dirname(absolute), { recursive: true });
        await writeFile(absolute, content);
      }
    },
  };
}

export function text(output: ToolOutput): string {
  return typeof output.content === "string" ? output.content : JSON.stringify(output.content);
}
