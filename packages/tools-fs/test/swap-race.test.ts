import { symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AnyTool } from "@bridle/core";
import { expect, it } from "vitest";
import { type Fixture, fixture, text } from "./helpers.js";
import { outsideState, startSwapper, Tally } from "./race-kit.js";

const CANARY = "OUTSIDE-CANARY";
const ROUNDS = 400;
// On a loaded machine 400 rounds can outlast the test's budget: after this long (and at least MIN_ROUNDS) the
// race stops early. It bounds the test's length only; nothing asserts a speed.
const ROUND_BUDGET_MS = 60_000;
const MIN_ROUNDS = 150;

/** Call a tool and check what it returned came from inside: no canary text, no outside-only name. */
async function call(fx: Fixture, tool: AnyTool, args: Record<string, unknown>, run: string) {
  const output = await fx.call<Record<string, unknown>>(tool, args, run);
  const details = output.details ?? {};
  // What the tool found, without the echo of the arguments (a grep for the canary names it in its answer).
  const found =
    tool.name === "grep"
      ? JSON.stringify(details.matches)
      : tool.name === "glob"
        ? JSON.stringify(details.files)
        : `${text(output)}\n${JSON.stringify(details)}`;
  expect(found).not.toContain(CANARY);
  expect(found).not.toContain("outside-only");
  return text(output);
}

it("reads nothing and writes nothing outside while another process swaps links under the tools", async () => {
  const fx = await fixture();
  await fx.files({ "inside.txt": "inside text\n", "d/file.txt": "inside d\n" });
  await writeFile(join(fx.outside, "canary.txt"), `${CANARY} link target\n`);
  await writeFile(join(fx.outside, "file.txt"), `${CANARY} in the folder\n`);
  await writeFile(join(fx.outside, "outside-only.txt"), `${CANARY} only here\n`);
  await symlink(join(fx.dir, "inside.txt"), join(fx.dir, "link.txt"));
  const before = await outsideState(fx.outside);
  const { readFile: read, writeFile: write, editFile: edit, listDir, glob, grep } = fx.kit;

  const swapper = await startSwapper(fx.dir, fx.outside);
  const tally = new Tally();
  const started = Date.now();
  for (let round = 0; round < ROUNDS; round++) {
    if (round >= MIN_ROUNDS && Date.now() - started > ROUND_BUDGET_MS) break;
    const run = `run-${round}`;
    const calls = [
      tally.attempt("read_file link.txt", async () => {
        await call(fx, read, { path: "link.txt" }, run);
      }),
      tally.attempt("read_file d/file.txt", async () => {
        await call(fx, read, { path: "d/file.txt" }, run);
      }),
      tally.attempt("write_file d/new", async () => {
        await call(fx, write, { path: `d/new-${round % 20}.txt`, content: `round ${round}\n` }, `${run}-w`);
      }),
      tally.attempt("write_file d/deeper/new", async () => {
        await call(fx, write, { path: `d/deeper-${round}/x/new.txt`, content: "deep\n" }, run);
      }),
      tally.attempt("write_file link.txt", async () => {
        await call(fx, read, { path: "link.txt" }, `${run}-l`);
        await call(fx, write, { path: "link.txt", content: "inside text\n" }, `${run}-l`);
      }),
      tally.attempt("edit_file d/file.txt", async () => {
        const shown = await call(fx, read, { path: "d/file.txt" }, `${run}-e`);
        const [from, to] = shown.includes("inside d") ? ["inside d", "inside e"] : ["inside e", "inside d"];
        await call(fx, edit, { path: "d/file.txt", old_string: from, new_string: to }, `${run}-e`);
      }),
      tally.attempt("list_dir d", async () => {
        await call(fx, listDir, { path: "d" }, run);
      }),
      tally.attempt("glob d/**", async () => {
        await call(fx, glob, { pattern: "d/**" }, run);
      }),
      tally.attempt("glob static", async () => {
        await call(fx, glob, { pattern: "d/outside-only.txt" }, run);
      }),
    ];
    if (round % 10 === 0) {
      calls.push(
        tally.attempt("grep d", async () => {
          await call(fx, grep, { pattern: CANARY, path: "d" }, run);
        }),
        tally.attempt("grep link.txt", async () => {
          await call(fx, grep, { pattern: CANARY, path: "link.txt" }, run);
        }),
      );
    }
    await Promise.all(calls);
  }
  const swaps = await swapper.stop();
  console.log("swap race:", JSON.stringify({ swaps, ok: [...tally.ok], refused: [...tally.refused] }));

  expect([...new Set(tally.crashes.map((crash) => crash.replace(/\/tmp\/\S+/g, "<path>")))]).toEqual([]);
  expect(await outsideState(fx.outside)).toBe(before);
  expect(swaps.fileSwaps + swaps.dirSwaps).toBeGreaterThan(2_000);
  // The race was real: every kind of call got through some of the time.
  for (const label of [
    "read_file link.txt",
    "read_file d/file.txt",
    "write_file d/new",
    "edit_file d/file.txt",
  ]) {
    expect(tally.ok.get(label) ?? 0).toBeGreaterThan(0);
  }
}, 120_000);
