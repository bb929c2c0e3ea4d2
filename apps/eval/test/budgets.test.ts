// Per-run budgets: a run past its time or token budget is aborted, says so in its notes, and is judged on
// what it left (here: a failing check, since the file was never written).
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { parseResultLines } from "../src/result.js";
import { runCommand } from "../src/run-command.js";

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "bridle-eval-budget-"));
  const task = join(root, "slow");
  await mkdir(join(task, "repo"), { recursive: true });
  await writeFile(join(task, "task.yaml"), "id: slow\nsuite: budget\nprompt: Write done.txt.\n");
  await writeFile(join(task, "repo", "README.md"), "x\n");
  const turn = { text: "thinking", usage: { inputTokens: 800, outputTokens: 200 } };
  await writeFile(
    join(task, "script.json"),
    JSON.stringify({
      scripts: {
        slow: { turns: [{ ...turn, delayMs: 60_000 }] },
        wordy: {
          turns: [
            { ...turn, toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
            { ...turn, toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
            {
              ...turn,
              toolCalls: [{ name: "write_file", arguments: { path: "done.txt", content: "ok\n" } }],
            },
            { text: "done" },
          ],
        },
      },
    }),
  );
  await writeFile(
    join(task, "check.mjs"),
    'import { existsSync } from "node:fs";\nexport default ({ dir }) => ({ pass: existsSync(dir + "/done.txt"), notes: [] });\n',
  );
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

test("--timeout aborts a run that outlasts it", async () => {
  const out = join(root, "time.jsonl");
  const summary = await runCommand([
    root,
    "--script",
    "slow",
    "--timeout",
    "1500",
    "--out",
    out,
    "--no-report",
  ]);
  const [line] = parseResultLines(await readFile(out, "utf8"));
  expect(summary.lines).toHaveLength(1);
  expect(line?.stopReason).toBe("aborted");
  expect(line?.pass).toBe(false);
  expect(line?.notes).toContain("time budget of 1500 ms reached: run aborted");
  // Aborted long before the scripted minute.
  expect(line?.durationMs).toBeLessThan(30_000);
});

test("--max-tokens aborts a run once a response takes it past the budget", async () => {
  const out = join(root, "tokens.jsonl");
  await runCommand([root, "--script", "wordy", "--max-tokens", "1500", "--out", out, "--no-report"]);
  const [line] = parseResultLines(await readFile(out, "utf8"));
  expect(line?.notes).toContain("token budget of 1500 reached: run aborted");
  expect(line?.turns).toBe(2);
  expect(line?.inputTokens).toBe(1600);
  expect(line?.pass).toBe(false);
  // Without the budget the same script writes the file and passes.
  const free = join(root, "free.jsonl");
  await runCommand([root, "--script", "wordy", "--out", free, "--no-report"]);
  expect(parseResultLines(await readFile(free, "utf8"))[0]?.pass).toBe(true);
});
