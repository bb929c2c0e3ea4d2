// Every suite under tasks/ in scripted mode: each script's check must say what the script expects (a
// passing run passes; a deliberately bad agent's run, `expect: "fail"`, fails its check), and every task's
// check fails the three sabotage agents (does nothing, deletes with `: > file`, only claims success).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";
import { type RunSummary, runCommand } from "../src/run-command.js";
import { SABOTAGE_SCRIPTS } from "../src/sabotage.js";

const TASKS = fileURLToPath(new URL("../tasks/", import.meta.url));
let out: string;
let summary: RunSummary;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "bridle-eval-suites-"));
  summary = await runCommand([TASKS, "--all-scripts", "--out", join(out, "results.jsonl")]);
}, 600_000);
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

test("every task's scripts end as they expect", () => {
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

test("every sabotage agent fails every task's check, and the results say it was expected", () => {
  const tasks = [...new Set(summary.lines.map((line) => `${line.suite}/${line.taskId}`))];
  expect(tasks.length).toBe(31);
  for (const name of SABOTAGE_SCRIPTS) {
    const runs = summary.lines.filter((line) => line.script === name);
    expect(runs.map((line) => `${line.suite}/${line.taskId}`).sort(), name).toEqual(tasks.sort());
    const passed = runs.filter((line) => line.pass).map((line) => `${line.suite}/${line.taskId}`);
    expect(passed, `${name} passed these checks`).toEqual([]);
    for (const line of runs) {
      expect(line.expect).toBe("fail");
      expect(
        line.notes.some((note) => note.startsWith("not met:")) || line.notes.length > 0,
        line.taskId,
      ).toBe(true);
    }
  }
  // The deleting agent really deleted where the shell let it: its bash call emptied a file in most tasks.
  const deleted = summary.lines.filter(
    (line) =>
      line.script === "sabotage-delete" &&
      line.notes.some((note) => /changed|tests pass|intact|diff/.test(note)),
  );
  expect(deleted.length).toBeGreaterThan(20);
});

test("each run links its page in the session viewer", async () => {
  const line = summary.lines.find((l) => l.script === "pass" && l.taskId === "range-off-by-one");
  expect(line?.viewPath).toMatch(/^pages\/.+\.html$/);
  const page = await readFile(join(out, line?.viewPath ?? ""), "utf8");
  expect(page).toContain("range-off-by-one");
  expect(page).toContain("<!doctype html>");
});
