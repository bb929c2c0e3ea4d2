// The diffs `bridle acp` sends an editor for an edit call: the named files read just before the call runs
// (in the run's sink) and again after, on real files. What is read goes to the editor, so a link, a FIFO
// and an oversize file are never read: a link may lead out of the workspace, and a FIFO would never end.
import { execFileSync } from "node:child_process";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RunEvent, ToolResultMessage } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { EditDiffs } from "../src/acp/diffs.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-acp-diffs-"));
  repo = join(dir, "repo");
  await mkdir(repo);
});
afterEach(() => cleanup());

/** A write_file call recorded through the run's sink (which reads its before-image), then its result. */
async function editCall(diffs: EditDiffs, id: string, path: string, write: () => Promise<void>) {
  const recorded: RunEvent[] = [];
  const sink = diffs.sink({
    write: async (event) => {
      recorded.push(event);
    },
  });
  await sink.write({
    type: "tool_call_requested",
    runId: "r",
    seq: 1,
    time: Date.now(),
    toolCall: {
      type: "tool_call",
      id,
      name: "write_file",
      arguments: JSON.stringify({ path, content: "x" }),
    },
    repairs: [],
  });
  // The sink passes the event on only once the before-image is read: the call could run from here.
  expect(recorded.map((event) => event.type)).toEqual(["tool_call_requested"]);
  await write();
  const result: ToolResultMessage = {
    role: "tool",
    toolCallId: id,
    toolName: "write_file",
    content: [{ type: "text", text: "ok" }],
    isError: false,
  };
  return diffs.after(result);
}

/** What a replacing write does: the old entry (whatever it was) goes, a regular file takes its place. */
const replaceWith = (path: string, text: string) => async () => {
  await rm(path);
  await writeFile(path, text);
};

it("shows an edited file's change as a diff of its whole text", async () => {
  await writeFile(join(repo, "notes.txt"), "old\n");
  const diffs = new EditDiffs(repo);
  expect(await editCall(diffs, "c1", "notes.txt", () => writeFile(join(repo, "notes.txt"), "new\n"))).toEqual(
    [{ type: "diff", path: join(repo, "notes.txt"), oldText: "old\n", newText: "new\n" }],
  );
});

it("does not read through a link, whose target may lie outside the workspace", async () => {
  await writeFile(join(dir, "outside.txt"), "OUTSIDE-SECRET\n");
  await symlink(join(dir, "outside.txt"), join(repo, "linked.txt"));
  const diffs = new EditDiffs(repo);
  const shown = await editCall(diffs, "c1", "linked.txt", replaceWith(join(repo, "linked.txt"), "mine\n"));
  expect(shown).toEqual([{ type: "diff", path: join(repo, "linked.txt"), oldText: null, newText: "mine\n" }]);
  expect(JSON.stringify(shown)).not.toContain("OUTSIDE-SECRET");
});

it("does not wait on a FIFO that no one writes to, before or after the call", async () => {
  const fifo = join(repo, "pipe");
  execFileSync("mkfifo", [fifo]);
  const diffs = new EditDiffs(repo);
  // Still a FIFO after the call: neither read blocks, and an unchanged nothing is no diff.
  expect(await editCall(diffs, "c1", "pipe", async () => {})).toEqual([]);
  // Replaced by a file: only the new text is shown.
  expect(await editCall(diffs, "c2", "pipe", replaceWith(fifo, "now a file\n"))).toEqual([
    { type: "diff", path: fifo, oldText: null, newText: "now a file\n" },
  ]);
});

it("does not read a file larger than 512 KiB, before or after", async () => {
  const big = join(repo, "big.txt");
  const huge = "y".repeat(512 * 1024 + 1);
  await writeFile(big, huge);
  const diffs = new EditDiffs(repo);
  const shrunk = await editCall(diffs, "c1", "big.txt", () => writeFile(big, "small\n"));
  expect(shrunk).toEqual([{ type: "diff", path: big, oldText: null, newText: "small\n" }]);
  // Exactly at the limit is still read.
  const limit = "z".repeat(512 * 1024);
  await writeFile(big, limit);
  const atLimit = await editCall(diffs, "c2", "big.txt", () => writeFile(big, "small\n"));
  expect(atLimit).toEqual([{ type: "diff", path: big, oldText: limit, newText: "small\n" }]);
});
