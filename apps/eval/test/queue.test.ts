// --queue: the runs go through the durable queue (DBOS on a throwaway loopback Postgres) to two
// `bridle-eval worker` processes, and come back judged here, as in-process runs are.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type LocalPostgres, startLocalPostgres } from "@bridle/tooling/postgres";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCommand } from "../src/run-command.js";
import { BIN } from "./cli.js";

const started = await startLocalPostgres();
const skip = "skip" in started ? started.skip : undefined;
const TASKS = ["bugfix", "secrets"].map((suite) =>
  fileURLToPath(new URL(`../tasks/${suite}`, import.meta.url)),
);

function startWorker(url: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--liftoff-only", BIN, "worker", "--database-url", url, "--concurrency", "1"],
    {
      // The same config folder as this process: runs are sealed with the approval secret kept there.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes("pulling eval runs")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`worker exited (${code}): ${stderr}`)));
  });
}

describe.skipIf(skip !== undefined)(`--queue over two workers${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const postgres = started as LocalPostgres;
  let out: string;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    out = await mkdtemp(join(tmpdir(), "bridle-eval-queue-"));
    // Both at once, on a fresh database: the durable engine migrates its schema one process at a time.
    const started = await Promise.allSettled([startWorker(postgres.url), startWorker(postgres.url)]);
    for (const result of started) if (result.status === "fulfilled") workers.push(result.value);
    for (const result of started) if (result.status === "rejected") throw result.reason;
  }, 120_000);
  afterAll(async () => {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise((resolve) => {
            worker.once("exit", resolve);
            worker.kill("SIGTERM");
          }),
      ),
    );
    postgres.stop();
    await rm(out, { recursive: true, force: true });
  });

  test("every run is executed by a worker, judged here, and ends as its script expects", {
    timeout: 300_000,
  }, async () => {
    const summary = await runCommand([
      ...TASKS,
      "--queue",
      "--database-url",
      postgres.url,
      "--concurrency",
      "6",
      "--out",
      join(out, "results.jsonl"),
      "--no-report",
    ]);
    const describeLine = (line: (typeof summary.lines)[number]) =>
      `${line.taskId} ${line.script}: ${line.error?.message ?? ""} ${line.notes.join("; ")}`;
    expect(summary.unexpected.map(describeLine)).toEqual([]);
    expect(summary.lines.length).toBeGreaterThanOrEqual(9);
    expect(summary.lines.every((line) => !line.error && line.turns > 0)).toBe(true);
    // Both workers took runs (each holds one at a time, and nine were queued at once).
    const executors = new Set(
      summary.lines.flatMap((line) => line.notes.filter((note) => note.startsWith("ran on worker"))),
    );
    expect(executors.size).toBe(2);
    for (const line of summary.lines) expect(existsSync(join(out, line.eventsPath))).toBe(true);
  });
});
