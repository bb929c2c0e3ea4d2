import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { fixture } from "./helpers.js";
import { expectNoneLost, startWorker, type WorkerReport } from "./race-kit.js";

const WORKER = fileURLToPath(new URL("./fixtures/edit-worker.ts", import.meta.url));
const WORKERS = ["a", "b", "c"];
const EDITS = 120;

it("three processes editing one file: every edit is applied or reported as a Conflict, none lost", async () => {
  const fx = await fixture();
  const lines: string[] = [];
  for (let n = 0; n < EDITS; n++) for (const id of WORKERS) lines.push(`${id}-${n}: todo`);
  await writeFile(join(fx.dir, "shared.txt"), `${lines.join("\n")}\n`);

  const workers = await Promise.all(
    WORKERS.map((id) => startWorker<WorkerReport>(WORKER, [fx.dir, "shared.txt", id, String(EDITS)])),
  );
  for (const worker of workers) worker.go();
  const reports = await Promise.all(workers.map((worker) => worker.report));
  const final = (await readFile(join(fx.dir, "shared.txt"), "utf8")).split("\n");
  console.log(
    "concurrent edits:",
    JSON.stringify(
      reports.map((r) => ({
        id: r.id,
        applied: r.applied.length,
        conflicts: Object.values(r.conflicts).reduce((a, b) => a + b, 0),
      })),
    ),
  );

  // Nothing but applied edits and Conflicts: a lost edit retried would have found its old text gone.
  expect(final).toHaveLength(lines.length + 1);
  expectNoneLost(reports, final, EDITS);
  expect(await readdir(fx.dir)).toEqual(["shared.txt"]);
}, 120_000);
