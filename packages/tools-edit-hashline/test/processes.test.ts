import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolFailure, type ToolFailureKind } from "@bridle/core";
import { expect, it } from "vitest";
// The race and process kit lives with tools-fs's tests, which prove the same guarantees for its tools.
import {
  expectNoneLost,
  outsideState,
  startSwapper,
  startWorker,
  Tally,
  type WorkerReport,
} from "../../tools-fs/test/race-kit.js";
import { setup, tagOf } from "./helpers.js";

const WORKER = fileURLToPath(new URL("./fixtures/edit-worker.ts", import.meta.url));
const CANARY = "OUTSIDE-CANARY";

it("reads nothing and writes nothing outside while another process swaps links under read and edit", async () => {
  const inner = await setup({}, "ws");
  const ws = inner.dir;
  const outside = join(ws, "..", "ws-evil");
  await mkdir(join(ws, "d"));
  await mkdir(outside);
  await writeFile(join(ws, "inside.txt"), "inside text\n");
  await writeFile(join(ws, "d/file.txt"), "inside d\n");
  await writeFile(join(outside, "canary.txt"), `${CANARY} link target\n`);
  await writeFile(join(outside, "file.txt"), `${CANARY} in the folder\n`);
  await symlink(join(ws, "inside.txt"), join(ws, "link.txt"));
  const before = await outsideState(outside);

  const swapper = await startSwapper(ws, outside);
  const tally = new Tally();
  const seen = (text: string) => expect(text).not.toContain(CANARY);
  for (let round = 0; round < 400; round++) {
    const run = `run-${round}`;
    await Promise.all(
      ["link.txt", "d/file.txt"].map((path) =>
        tally.attempt(`read+edit ${path}`, async () => {
          const read = await inner.read({ path }, `${run}-${path}`);
          if (!read.ok) throw new ToolFailure(read.kind as ToolFailureKind, read.text);
          seen(read.text);
          const [from, to] = read.text.includes("inside") ? ["inside", "inSide"] : ["inSide", "inside"];
          const line = read.text.split("\n")[0]?.split(" | ")[1] ?? "";
          const edited = await inner.edit(
            {
              path,
              edits: [{ op: "replace_line", tag: tagOf(read.text, 1), new_text: line.replace(from, to) }],
            },
            `${run}-${path}`,
          );
          seen(edited.text);
          if (!edited.ok) throw new ToolFailure(edited.kind as ToolFailureKind, edited.text);
        }),
      ),
    );
  }
  const swaps = await swapper.stop();
  console.log(
    "hashline swap race:",
    JSON.stringify({ swaps, ok: [...tally.ok], refused: [...tally.refused] }),
  );
  expect(tally.crashes).toEqual([]);
  expect(await outsideState(outside)).toBe(before);
  expect(swaps.fileSwaps + swaps.dirSwaps).toBeGreaterThan(2_000);
  expect(tally.ok.get("read+edit link.txt") ?? 0).toBeGreaterThan(0);
  expect(tally.ok.get("read+edit d/file.txt") ?? 0).toBeGreaterThan(0);
}, 120_000);

it("three processes editing one file by tag: every edit is applied or reported as a Conflict, none lost", async () => {
  const t = await setup();
  const ids = ["a", "b", "c"];
  const edits = 100;
  const lines: string[] = [];
  for (let n = 0; n < edits; n++) for (const id of ids) lines.push(`${id}-${n}: todo`);
  await writeFile(join(t.dir, "shared.txt"), `${lines.join("\n")}\n`);
  const workers = await Promise.all(
    ids.map((id) => startWorker<WorkerReport>(WORKER, [t.dir, "shared.txt", id, String(edits)])),
  );
  for (const worker of workers) worker.go();
  const reports = await Promise.all(workers.map((worker) => worker.report));
  const final = (await readFile(join(t.dir, "shared.txt"), "utf8")).split("\n");
  expect(final).toHaveLength(lines.length + 1);
  expectNoneLost(reports, final, edits);
  expect(await readdir(t.dir)).toEqual(["shared.txt"]);
}, 120_000);
