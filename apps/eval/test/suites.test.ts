// Every suite under tasks/ in scripted mode: each script's check must say what the script expects (a
// passing run passes; a deliberately bad agent's run, `expect: "fail"`, fails its check).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";
import { runCommand } from "../src/run-command.js";

const TASKS = fileURLToPath(new URL("../tasks/", import.meta.url));
let out: string;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "bridle-eval-suites-"));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

test("every task's scripts end as they expect", { timeout: 400_000 }, async () => {
  const summary = await runCommand([TASKS, "--all-scripts", "--out", join(out, "results.jsonl")]);
  const describe = (line: (typeof summary.lines)[number]) =>
    `${line.suite}/${line.taskId} ${line.script} pass=${line.pass}: ${line.error?.message ?? ""} ${line.notes.join("; ")}`;
  expect(summary.unexpected.map(describe)).toEqual([]);
  expect(summary.lines.every((line) => !line.error)).toBe(true);
  // Every task has a passing script.
  const tasks = new Set(summary.lines.map((line) => line.taskId));
  const passing = new Set(summary.lines.filter((line) => line.pass).map((line) => line.taskId));
  expect([...tasks].filter((task) => !passing.has(task))).toEqual([]);
});
