// The shell tool under the recipe's wrapper: a real tool writing real files in a temp workspace gains the
// diffs of what it changed, and a watch that cannot open leaves the result as the tool made it.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CommandWatch } from "@bridle/coding";
import { type AnyTool, defineTool, type ToolCallEnv, Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { z } from "zod";
import { withCommandDiffs } from "../src/command-diffs.js";

let dir: string;
let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-command-diffs-"));
  // The workspace, and beside it (never inside) the data folder the checkpoints' contents go in.
  root = join(dir, "work");
  await mkdir(root);
  await writeFile(join(root, "a.txt"), "one\ntwo\n");
});
afterEach(() => cleanup());

// A tool that writes what it is told, standing in for a command: the wrapper knows nothing of bash.
const writer: AnyTool = defineTool({
  name: "bash",
  description: "writes a file",
  inputSchema: z.object({ path: z.string(), text: z.string() }),
  execute: async (args) => {
    await writeFile(join(root, args.path), args.text);
    return { content: "ok", details: { result: { exit_code: 0 } } };
  },
});

const env = (): ToolCallEnv => ({
  signal: new AbortController().signal,
  workspace: new Workspace({ roots: [root] }),
  runId: "r",
  toolCallId: "c1",
  progress: () => {},
});

it("adds the diffs of the files a call changed, keeping the tool's own details", async () => {
  const tool = withCommandDiffs(writer, () => CommandWatch.open({ dataDir: join(dir, "data"), root }));
  expect(tool.name).toBe("bash");
  // Its listings bracket this call alone: a batch holding it runs one call at a time.
  expect(writer.sequential).toBeUndefined();
  expect(tool.sequential).toBe(true);
  const output = await tool.execute({ path: "a.txt", text: "one\nTWO\n" }, env());
  expect(output.content).toBe("ok");
  expect(output.details).toEqual({
    result: { exit_code: 0 },
    diffs: [
      {
        path: "a.txt",
        change: "update",
        added: 1,
        removed: 1,
        hunks: [{ oldStart: 2, newStart: 2, removed: ["two"], added: ["TWO"] }],
        omittedLines: 0,
      },
    ],
    changed_files: { count: 1, unshown: [] },
  });
  // Nothing changed: the result is the tool's own.
  const same = await tool.execute({ path: "a.txt", text: "one\nTWO\n" }, env());
  expect(same.details).toEqual({ result: { exit_code: 0 } });
});

it("a watch that cannot open leaves the call's result as the tool made it", async () => {
  const tool = withCommandDiffs(writer, async () => {
    throw new Error("no data folder");
  });
  const output = await tool.execute({ path: "b.txt", text: "new\n" }, env());
  expect(output).toEqual({ content: "ok", details: { result: { exit_code: 0 } } });
});
