import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { parseToolArguments, type Tool, type ToolCallEnv, ToolFailure, Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach } from "vitest";
import type { z } from "zod";
import { createHashlineTools, type HashlineOptions } from "../src/index.js";

export type CallResult =
  | { readonly ok: true; readonly text: string; readonly details: unknown }
  | { readonly ok: false; readonly kind: string; readonly text: string };

export interface Harnessless {
  readonly dir: string;
  readonly workspace: Workspace;
  read(args: Record<string, unknown>, runId?: string): Promise<CallResult>;
  edit(args: Record<string, unknown>, runId?: string): Promise<CallResult>;
}

/** What the harness hands a tool, for calling one directly. */
export function toolContext(
  workspace: Workspace,
  runId = "run-1",
  signal: AbortSignal = new AbortController().signal,
): ToolCallEnv {
  return { signal, workspace, runId, toolCallId: "call_1", progress: () => {} };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A temp workspace and the hashline pair, called the way the harness calls them (JSON in, schema-checked). */
export async function setup(options: HashlineOptions = {}, folder?: string): Promise<Harnessless> {
  const temp = await tempWorkspace("bridle-hashline-");
  cleanups.push(temp.cleanup);
  // With `folder`, the workspace is that folder of the temp dir, so the rest of it is outside.
  const dir = folder === undefined ? temp.dir : join(temp.dir, folder);
  await mkdir(dir, { recursive: true });
  const workspace = new Workspace(dir);
  const [readTool, editTool] = createHashlineTools(options);
  const call = async (tool: Tool<z.ZodType, unknown>, args: Record<string, unknown>, runId: string) => {
    const parsed = parseToolArguments(tool.inputSchema, JSON.stringify(args));
    if (!parsed.ok) return { ok: false as const, kind: "InvalidInput", text: parsed.problems.join("; ") };
    const ctx = toolContext(workspace, runId);
    try {
      const output = await tool.execute(parsed.value, ctx);
      return { ok: true as const, text: String(output.content), details: output.details };
    } catch (error) {
      if (error instanceof ToolFailure) return { ok: false as const, kind: error.kind, text: error.message };
      throw error;
    }
  };
  return {
    dir,
    workspace,
    read: (args, runId = "run-1") => call(readTool, args, runId),
    edit: (args, runId = "run-1") => call(editTool, args, runId),
  };
}

export interface Hashline {
  readonly line: number;
  readonly tag: string;
  readonly text: string;
}

const HASHLINE = /^ *(\d+) ([0-9a-f]{8}) \| (.*)$/;

/** The hashlines in a tool's text (read output, edit result or error), by line number. */
export function hashlines(text: string): Map<number, Hashline> {
  const out = new Map<number, Hashline>();
  for (const row of text.split("\n")) {
    const match = HASHLINE.exec(row);
    if (match)
      out.set(Number(match[1]), {
        line: Number(match[1]),
        tag: match[2] as string,
        text: match[3] as string,
      });
  }
  return out;
}

export function tagOf(text: string, line: number): string {
  const found = hashlines(text).get(line);
  if (!found) throw new Error(`line ${line} is not shown in:\n${text}`);
  return found.tag;
}

export function expectOk(result: CallResult): string {
  if (!result.ok) throw new Error(`expected success, got ${result.kind}: ${result.text}`);
  return result.text;
}
