import { type ChildProcess, spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { fixture } from "./helpers.js";

const LOADER = fileURLToPath(new URL("./fixtures/ts-loader.mjs", import.meta.url));
const WORKER = fileURLToPath(new URL("./fixtures/edit-worker.ts", import.meta.url));
const WORKERS = ["a", "b", "c"];
const EDITS = 80;

interface WorkerReport {
  readonly id: string;
  readonly applied: number[];
  readonly conflicts: Record<string, number>;
  readonly failures: string[];
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** Start a worker; resolves once it has loaded, with a promise of its report. */
async function startWorker(dir: string, id: string) {
  const child = spawn(
    process.execPath,
    [
      "--experimental-transform-types",
      "--no-warnings",
      "--import",
      LOADER,
      WORKER,
      dir,
      "shared.txt",
      id,
      String(EDITS),
    ],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  children.push(child);
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
  });
  const report = new Promise<WorkerReport>((resolve, reject) => {
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`worker ${id} exited ${code}: ${err}`));
      else resolve(JSON.parse(out.slice(out.indexOf("ready\n") + 6)) as WorkerReport);
    });
  });
  await new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      if (out.includes("ready\n")) {
        clearInterval(poll);
        resolve();
      }
    }, 10);
    report.catch((error: unknown) => {
      clearInterval(poll);
      reject(error);
    });
  });
  return { go: () => child.stdin.end("go\n"), report };
}

it("three processes editing one file: every edit is applied or reported as a Conflict, none lost", async () => {
  const fx = await fixture();
  const lines: string[] = [];
  for (let n = 0; n < EDITS; n++) for (const id of WORKERS) lines.push(`${id}-${n}: todo`);
  await writeFile(join(fx.dir, "shared.txt"), `${lines.join("\n")}\n`);

  const workers = await Promise.all(WORKERS.map((id) => startWorker(fx.dir, id)));
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
  expect(reports.flatMap((r) => r.failures)).toEqual([]);
  expect(final).toHaveLength(lines.length + 1);
  for (const report of reports) {
    for (let n = 0; n < EDITS; n++) {
      const done = final.filter((line) => line === `${report.id}-${n}: done`).length;
      const todo = final.filter((line) => line === `${report.id}-${n}: todo`).length;
      if (report.applied.includes(n)) expect({ n, done, todo }).toEqual({ n, done: 1, todo: 0 });
      else {
        // Given up after being told Conflict every time: the file must say so too.
        expect(report.conflicts[n]).toBeGreaterThan(0);
        expect({ n, done, todo }).toEqual({ n, done: 0, todo: 1 });
      }
    }
  }
  // The processes really overlapped: some edits met a file another process had just changed.
  expect(reports.reduce((sum, r) => sum + Object.keys(r.conflicts).length, 0)).toBeGreaterThan(0);
  expect(await readdir(fx.dir)).toEqual(["shared.txt"]);
}, 120_000);
