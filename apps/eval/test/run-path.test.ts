// `bridle-eval run PATH`: a task folder written outside the repository, run by path through the built bin.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { parseResultLines } from "../src/result.js";
import { runBin } from "./cli.js";

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "bridle-eval-path-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeTask(dir: string, options: { expectText: string }): Promise<void> {
  await mkdir(join(dir, "repo"), { recursive: true });
  await writeFile(
    join(dir, "task.yaml"),
    "id: greet\nsuite: temp\nprompt: Write hello.txt saying hello.\ntags: [temp]\nlimits:\n  maxTurns: 4\n",
  );
  await writeFile(join(dir, "repo", "README.md"), "A tiny repository.\n");
  await writeFile(
    join(dir, "script.json"),
    JSON.stringify({
      scripts: {
        pass: {
          turns: [
            { toolCalls: [{ name: "write_file", arguments: { path: "hello.txt", content: "hello\n" } }] },
            { text: "Wrote hello.txt." },
          ],
        },
      },
    }),
  );
  await writeFile(
    join(dir, "check.mjs"),
    `import { readFileSync } from "node:fs";
export default function check({ dir, events, transcript, result }) {
  const text = readFileSync(dir + "/hello.txt", "utf8");
  const pass = text === ${JSON.stringify(options.expectText)} && events.length > 0 && transcript.length > 0 && result.stopReason === "completed";
  return { pass, notes: pass ? [] : ["hello.txt says " + JSON.stringify(text)] };
}
`,
  );
}

test("runs a task folder given by path, writes results, events and a report, and resumes", async () => {
  const task = join(root, "tasks", "greet");
  await writeTask(task, { expectText: "hello\n" });
  const out = join(root, "out", "results.jsonl");
  const first = await runBin(["run", join(root, "tasks"), "--out", out, "--runs", "2"], { cwd: root });
  expect(first.stderr).toContain("2 runs: 2 of 2 passed");
  expect(first.code).toBe(0);
  // Lines are appended as runs end (concurrently): order them to compare.
  const lines = parseResultLines(await readFile(out, "utf8")).sort((a, b) => a.runIndex - b.runIndex);
  expect(lines.map((line) => [line.taskId, line.runIndex, line.pass])).toEqual([
    ["greet", 0, true],
    ["greet", 1, true],
  ]);
  // Each run's events are in the store, linked from its line.
  const events = await readFile(join(root, "out", lines[0]?.eventsPath ?? ""), "utf8");
  expect(events).toContain("hello.txt");
  const report = await readFile(join(root, "out", "report.html"), "utf8");
  expect(report).toContain("greet");
  // Every run links its viewer page, and each link opens a file that is there.
  const links = [...report.matchAll(/href="([^"]+\.html)"/g)].map((match) => match[1] ?? "");
  expect(links.length).toBeGreaterThanOrEqual(2);
  for (const link of links) expect(existsSync(join(root, "out", link)), link).toBe(true);
  expect(await readFile(join(root, "out", lines[0]?.viewPath ?? ""), "utf8")).toContain("hello.txt");
  // --resume with one more repetition runs only the new one.
  const again = await runBin(["run", task, "--out", out, "--runs", "3", "--resume"], { cwd: root });
  expect(again.code).toBe(0);
  const after = parseResultLines(await readFile(out, "utf8"));
  expect(after.map((line) => line.runIndex).sort()).toEqual([0, 1, 2]);
  expect(again.stderr).toContain("3 runs: 3 of 3 passed");
});

test("a failing check makes the exit code 1 and its notes reach the results", async () => {
  const task = join(root, "greet");
  await writeTask(task, { expectText: "goodbye\n" });
  const out = join(root, "results.jsonl");
  const run = await runBin(["run", task, "--out", out, "--no-report"], { cwd: root });
  expect(run.code).toBe(1);
  const [line] = parseResultLines(await readFile(out, "utf8"));
  expect(line?.pass).toBe(false);
  expect(line?.notes).toEqual(['hello.txt says "hello\\n"']);
});

test("a malformed task.yaml is refused with the file and field named, exit 2", async () => {
  const task = join(root, "bad");
  await writeTask(task, { expectText: "hello\n" });
  await writeFile(join(task, "task.yaml"), "id: Bad Id\nsuite: temp\nprompt: x\nlimits:\n  maxTurns: -1\n");
  const run = await runBin(["run", task], { cwd: root });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/task\.yaml: id: lower-case letters/);
  const missing = await runBin(["run", join(root, "nowhere")], { cwd: root });
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("no such folder");
});
