import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ToolCallEnv, Workspace } from "@bridle/core";
import { afterAll, test } from "vitest";
import { createHashlineTools, lineTag } from "../src/index.js";

const LINES = 100_000;
const EDITS = 100;
// The slow cases take seconds per iteration on a shared 2-core machine: a few samples are enough.
const FEW = { time: 0, iterations: 5, warmupTime: 0, warmupIterations: 1 };

const dir = await mkdtemp(join(tmpdir(), "bridle-hashline-bench-"));
afterAll(() => rm(dir, { recursive: true, force: true }));
const workspace = new Workspace(dir);
const texts = Array.from({ length: LINES }, (_, i) =>
  i % 10 === 0 ? "" : `    const value${i} = compute(${i}, "label ${i % 97}"); // step ${i % 13}`,
);
await writeFile(join(dir, "big.ts"), `${texts.join("\n")}\n`);
await writeFile(join(dir, "edit.ts"), `${texts.join("\n")}\n`);

const [readTool, editTool] = createHashlineTools({
  defaultLimit: LINES,
  maxOutputChars: Number.MAX_SAFE_INTEGER,
});
const ctx: ToolCallEnv = {
  signal: new AbortController().signal,
  workspace,
  runId: "bench",
  toolCallId: "bench",
  progress: () => {},
};

// The edited lines: spread over the file, each toggled between two texts of the same length so every
// iteration starts from a valid state and the line count (hence every other tag) never changes.
const targets = Array.from({ length: EDITS }, (_, i) => 3 + i * Math.floor(LINES / EDITS));
const variant = (line: number, odd: boolean) => `${odd ? "/*B*/" : "/*A*/"}${texts[line - 1] as string}`;
let odd = false;
const current = new Map<number, string>(targets.map((line) => [line, texts[line - 1] as string]));

async function editOnce(batch: readonly number[]) {
  const edits = batch.map((line) => ({
    op: "replace_line" as const,
    tag: lineTag(line, current.get(line) as string),
    new_text: variant(line, odd),
  }));
  const result = await editTool.execute({ path: "edit.ts", edits }, ctx);
  if (result.isError) throw new Error(String(result.content));
  for (const line of batch) current.set(line, variant(line, odd));
}

// Every tag the edits use must have been shown to the model: one full read registers them all.
await readTool.execute({ path: "edit.ts" }, ctx);
// Register both variants' tags too (the edit results do this as well, once each has run).
await editOnce(targets);
odd = !odd;
await editOnce(targets);
odd = !odd;

test(`read a ${LINES.toLocaleString("en")}-line file`, async ({ bench }) => {
  await bench("hashline read_file (all lines, tagged)", async () => {
    const out = await readTool.execute({ path: "big.ts" }, ctx);
    if (typeof out.content !== "string" || out.content.length < LINES * 20) throw new Error("short read");
  }).run(FEW);
  await bench("baseline: plain numbered read (no tags)", async () => {
    const text = await readFile(join(dir, "big.ts"), "utf8");
    const out = text.split("\n").map((line, i) => `${String(i + 1).padStart(6)}\t${line}`);
    if (out.join("\n").length < LINES * 20) throw new Error("short read");
  }).run();
  await bench("hashline read_file (default page of 2,000 lines)", async () => {
    await readTool.execute({ path: "big.ts", limit: 2_000 }, ctx);
  }).run();
});

test(`${EDITS} tagged edits on a ${LINES.toLocaleString("en")}-line file`, async ({ bench }) => {
  await bench(`one edit_file call with ${EDITS} edits`, async () => {
    await editOnce(targets);
    odd = !odd;
  }).run();
  await bench(`${EDITS} edit_file calls with one edit each`, async () => {
    for (const line of targets) await editOnce([line]);
    odd = !odd;
  }).run(FEW);
});
