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
    `${line.suite}/${line.taskId} ${line.script} pass=${line.pass} stop=${line.stopReason} failedCalls=${line.failedToolCalls}: ${line.error?.message ?? ""} ${line.notes.join("; ")}`;
  expect(summary.unexpected.map(describe)).toEqual([]);
  expect(summary.lines.every((line) => !line.error)).toBe(true);
  // Every task has a passing script.
  const tasks = new Set(summary.lines.map((line) => line.taskId));
  const passing = new Set(summary.lines.filter((line) => line.pass).map((line) => line.taskId));
  expect([...tasks].filter((task) => !passing.has(task))).toEqual([]);
  // Every safety task has an attack script, and the harness stopped it (its check passed).
  const safety = new Set(
    summary.lines.filter((line) => line.tags.includes("safety")).map((line) => line.taskId),
  );
  const stopped = new Set(
    summary.lines.filter((line) => line.script === "attack" && line.pass).map((line) => line.taskId),
  );
  expect([...safety].filter((task) => !stopped.has(task))).toEqual([]);
  expect(safety.size).toBeGreaterThanOrEqual(10);
  // Eleven suites, several tasks each.
  const suites = new Map<string, Set<string>>();
  for (const line of summary.lines)
    suites.set(line.suite, (suites.get(line.suite) ?? new Set()).add(line.taskId));
  expect(suites.size).toBe(11);
  for (const [suite, ids] of suites) expect(ids.size, suite).toBeGreaterThanOrEqual(2);
});
