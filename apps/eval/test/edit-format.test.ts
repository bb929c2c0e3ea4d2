// The edit-format benchmark on a small sample: its correctness properties, never its speed.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatTable, runEditBench, summarize } from "../src/edit-format/bench.js";
import { EDIT_FORMATS, MISTAKES_BY_FORMAT } from "../src/edit-format/edits.js";
import { applyMutation, candidates, MUTATION_KINDS } from "../src/edit-format/mutations.js";
import { runEditTask } from "../src/edit-format/run-task.js";
import {
  checkFixed,
  defaultCorpusDir,
  type EditTask,
  generateTasks,
  loadCorpus,
} from "../src/edit-format/tasks.js";
import { ResultLine } from "../src/result.js";

const corpus = loadCorpus();
const tasks = generateTasks(corpus, { seed: 7 });

describe("the corpus", () => {
  it("keeps every file's licence and provenance beside it", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(5);
    for (const file of corpus) {
      const dir = join(defaultCorpusDir(), `${file.package}@${file.version}`);
      expect(readFileSync(join(dir, "LICENSE"), "utf8")).toMatch(/permission|copyright/i);
      expect(file.license).toMatch(/^(MIT|ISC)$/);
      expect(file.path).toMatch(/\.js$/);
      expect(file.text.split("\n").length).toBeGreaterThan(30);
    }
  });
});

describe("task generation", () => {
  it("is deterministic for a seed and differs for another", () => {
    const again = generateTasks(loadCorpus(), { seed: 7 });
    expect(again.map((t) => [t.id, t.broken])).toEqual(tasks.map((t) => [t.id, t.broken]));
    const other = generateTasks(corpus, { seed: 8 });
    expect(other.map((t) => t.id)).not.toEqual(tasks.map((t) => t.id));
  });

  it("plants every mutation kind, each a one-line change whose check fails until it is undone", () => {
    expect(new Set(tasks.map((t) => t.mutation.kind))).toEqual(new Set(MUTATION_KINDS));
    for (const task of tasks) {
      expect(checkFixed(task, task.broken)).toBe(false);
      expect(checkFixed(task, task.original)).toBe(true);
      const before = task.original.split("\n");
      const after = task.broken.split("\n");
      expect(before.length - after.length).toBe(task.mutation.mutated === undefined ? 1 : 0);
      expect(before.filter((line, i) => after[i] !== line).length).toBeGreaterThan(0);
      // The fix is described in words: it names the line's number and never shows a diff.
      expect(task.prompt).toMatch(/line \d+/i);
      expect(task.prompt).not.toMatch(/^[-+@]{1,3} /m);
    }
  });

  it("finds no place for a bug in comments or blank lines", () => {
    const lines = ["// a === b", "", " * x < y", "const total = a + b;"];
    for (const kind of MUTATION_KINDS) {
      for (const mutation of candidates(kind, lines)) expect(mutation.line).toBe(3);
    }
    const [flip] = candidates("flipped_operator", lines);
    expect(flip && applyMutation(lines, flip)[3]).toBe("const total = a - b;");
  });
});

describe("the benchmark with the real tools through a Harness", () => {
  const sample: EditTask[] = tasks.filter((_, i) => i % 3 === 0);

  it("succeeds on every task in every format, first try, when the model makes no mistake", async () => {
    const lines = await runEditBench({ seed: 7, rate: 0, mistakes: ["none"], corpus });
    expect(lines.length).toBe(tasks.length * EDIT_FORMATS.length);
    for (const line of lines) {
      expect({ id: line.taskId, format: line.format, pass: line.pass }).toEqual({
        id: line.taskId,
        format: line.format,
        pass: true,
      });
      expect(line.failedEditCalls).toBe(0);
      expect(line.metrics?.extraTurns).toBe(0);
      expect(line.inputTokens).toBeGreaterThan(0);
      ResultLine.parse(line);
    }
  });

  it("makes every injected mistake at rate 1, and a rejected edit costs a failed call and extra turns", async () => {
    for (const task of sample) {
      for (const [format, mistake] of [
        ["hashline", "invented_tag"],
        ["hashline", "stale_tag"],
        ["replace", "whitespace_drift"],
      ] as const) {
        const line = await runEditTask(task, format, { kind: mistake, rate: 1, seed: 7 });
        expect(line.metrics?.injectedMistakes).toBeGreaterThanOrEqual(1);
        // A tag that names no line, or a quote that does not match, must be refused, never guessed.
        expect(line.failedEditCalls).toBeGreaterThanOrEqual(1);
        expect(line.metrics?.extraTurns).toBeGreaterThanOrEqual(2);
      }
    }
  });

  it("never lets the slips models make in new text corrupt a file silently, and every refusal names the line", async () => {
    const kinds = [
      ["hashline", "pasted_prefix"],
      ["hashline", "literal_tab"],
      ["hashline", "literal_newline"],
      ["hashline", "swapped_tag"],
      ["hashline", "line_number_tag"],
      ["replace", "literal_tab"],
      ["replace", "literal_newline"],
      ["replace", "escape_new_only"],
      ["replace", "context_in_new_only"],
    ] as const;
    for (const task of sample) {
      for (const [format, mistake] of kinds) {
        const line = await runEditTask(task, format, { kind: mistake, rate: 1, seed: 7 });
        const outcome = { task: task.id, format, mistake, ...line.metrics };
        expect(outcome).toMatchObject({ silentCorruption: 0, nonActionableRefusals: 0 });
        // The slip was made, and the file ended up right: repaired at once, or refused and resent.
        if (line.metrics?.injectedMistakes) expect(line.pass || line.failedEditCalls >= 4).toBe(true);
      }
    }
  });

  it("counts an applied edit that leaves the file wrong as a silent corruption", async () => {
    const [task] = sample;
    if (!task) throw new Error("no task");
    // An edit answered as applied with the file still wrong afterwards; a refusal that names no line.
    const { editOutcome } = await import("../src/edit-format/outcome.js");
    const applied = {
      role: "tool",
      toolCallId: "e",
      toolName: "edit_file",
      content: [{ type: "text", text: "Edited" }],
      isError: false,
    } as const;
    const refused = {
      ...applied,
      content: [{ type: "text", text: "InvalidInput: not found" }],
      isError: true,
    } as const;
    expect(editOutcome(task, "replace", [refused, applied], false)).toEqual({
      silentCorruption: 1,
      refusals: 1,
      nonActionableRefusals: 1,
    });
    expect(editOutcome(task, "replace", [refused, applied], true).silentCorruption).toBe(0);
  });

  it("sums the lines into a table of formats and mistake kinds", async () => {
    const lines = await runEditBench({
      seed: 7,
      rate: 1,
      corpus: corpus.slice(0, 2),
      mutations: ["flipped_operator", "changed_literal"],
    });
    const rows = summarize(lines);
    const expected = EDIT_FORMATS.flatMap((format) =>
      ["none", ...MISTAKES_BY_FORMAT[format]].map((mistake) => `${format}/${mistake}`),
    );
    expect(rows.map((row) => `${row.format}/${row.mistake}`)).toEqual(expected);
    for (const row of rows) {
      if (row.mistake === "none") expect(row.passed).toBe(row.tasks);
      expect(row.passed).toBe(
        lines.filter((l) => l.format === row.format && l.script?.startsWith(`${row.mistake}@`) && l.pass)
          .length,
      );
    }
    const table = formatTable(rows);
    expect(table.split("\n")).toHaveLength(rows.length + 2);
    expect(table).toMatch(/\| hashline \| invented_tag \| \d+ \| [\d.]+% \|/);
  });
});

describe("bridle-eval edit-bench", () => {
  const bin = join(import.meta.dirname, "..", "dist", "main.js");
  it.skipIf(!existsSync(bin))("prints the table and writes result lines the report reads", async () => {
    const { mkdtemp, readFile, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { parseResultLines } = await import("../src/result.js");
    const { runBin } = await import("./cli.js");
    const dir = await mkdtemp(join(tmpdir(), "edit-bench-cli-"));
    try {
      const out = join(dir, "results.jsonl");
      const run = await runBin(
        ["edit-bench", "--format", "hashline", "--mistake", "none,invented_tag", "--out", out],
        {
          cwd: dir,
        },
      );
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/\| hashline \| none \| \d+ \| 100\.0% \|/);
      const lines = parseResultLines(await readFile(out, "utf8"));
      expect(lines.length).toBe(2 * generateTasks(corpus, { seed: 1 }).length);
      expect(new Set(lines.map((l) => l.format))).toEqual(new Set(["hashline"]));
      const bad = await runBin(["edit-bench", "--format", "sed"], { cwd: dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--format: unknown sed/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
