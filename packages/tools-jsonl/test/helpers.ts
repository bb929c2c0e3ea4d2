import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { type ToolCallEnv, ToolFailure, Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, expect } from "vitest";
import { createJsonlSearchTool, type JsonlSearchDetails, type JsonlSearchOptions } from "../src/index.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

export interface Fixture {
  readonly dir: string;
  /** A folder beside the workspace root, outside it. */
  readonly outside: string;
  search(
    args: Record<string, unknown>,
    signal?: AbortSignal,
    progress?: () => void,
  ): Promise<{ content: string; details: JsonlSearchDetails }>;
  fail(args: Record<string, unknown>): Promise<ToolFailure>;
  files(tree: Record<string, string>): Promise<void>;
}

/** A real workspace folder and jsonl_search called as a run calls it (arguments through its schema). */
export async function fixture(options: JsonlSearchOptions = {}): Promise<Fixture> {
  const temp = await tempWorkspace("bridle-jsonl-");
  cleanups.push(temp.cleanup);
  const dir = join(temp.dir, "ws");
  const outside = join(temp.dir, "ws-evil");
  await mkdir(dir);
  await mkdir(outside);
  const workspace = new Workspace({ roots: [dir] });
  const tool = createJsonlSearchTool(options);
  const context = (signal?: AbortSignal, progress?: () => void): ToolCallEnv => ({
    signal: signal ?? new AbortController().signal,
    workspace,
    runId: "run-1",
    toolCallId: "call-1",
    progress: progress ?? (() => {}),
  });
  const search = async (args: Record<string, unknown>, signal?: AbortSignal, progress?: () => void) => {
    const output = await tool.execute(tool.inputSchema.parse(args), context(signal, progress));
    return { content: output.content as string, details: output.details as JsonlSearchDetails };
  };
  return {
    dir,
    outside,
    search,
    async fail(args) {
      try {
        await search(args);
      } catch (error) {
        expect(error).toBeInstanceOf(ToolFailure);
        return error as ToolFailure;
      }
      throw new Error("jsonl_search did not fail");
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

/** JSONL text of these rows, one per line. */
export function jsonl(rows: readonly unknown[]): string {
  return `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`;
}
