import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type AnyTool, type ToolCallEnv, ToolFailure, type ToolOutput, Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, expect } from "vitest";
import { createFsTools, type FsToolkit, type FsToolsOptions } from "../src/index.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

export interface Fixture {
  /** The workspace root (a real temp folder). */
  readonly dir: string;
  /** A folder beside the root, outside the workspace. */
  readonly outside: string;
  readonly workspace: Workspace;
  readonly kit: FsToolkit;
  /** Call a tool as a run would: arguments validated by its schema, context for `runId`. */
  call<D>(
    tool: AnyTool,
    args: Record<string, unknown>,
    runId?: string,
    signal?: AbortSignal,
  ): Promise<ToolOutput<D>>;
  /** The ToolFailure a call throws. */
  fail(tool: AnyTool, args: Record<string, unknown>, runId?: string): Promise<ToolFailure>;
  /** Write files given as { "relative/path": content }. */
  files(tree: Record<string, string | Uint8Array>): Promise<void>;
}

export async function fixture(options: FsToolsOptions & { allowSecrets?: boolean } = {}): Promise<Fixture> {
  const temp = await tempWorkspace("bridle-fs-");
  cleanups.push(temp.cleanup);
  const dir = join(temp.dir, "ws");
  const outside = join(temp.dir, "ws-evil");
  await mkdir(dir);
  await mkdir(outside);
  const workspace = new Workspace({ roots: [dir], allowSecrets: options.allowSecrets ?? false });
  const kit = createFsTools(options);
  const context = (runId: string, signal?: AbortSignal): ToolCallEnv => ({
    signal: signal ?? new AbortController().signal,
    workspace,
    runId,
    toolCallId: `call-${Math.random()}`,
    progress: () => {},
  });
  const call = async <D>(
    tool: AnyTool,
    args: Record<string, unknown>,
    runId = "run-1",
    signal?: AbortSignal,
  ) => {
    const parsed = tool.inputSchema.parse(args);
    return (await tool.execute(parsed, context(runId, signal))) as ToolOutput<D>;
  };
  return {
    dir,
    outside,
    workspace,
    kit,
    call,
    async fail(tool, args, runId) {
      try {
        await call(tool, args, runId);
      } catch (error) {
        expect(error).toBeInstanceOf(ToolFailure);
        return error as ToolFailure;
      }
      throw new Error(`${tool.name} did not fail`);
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
  if (typeof output.content === "string") return output.content;
  return output.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("");
}
