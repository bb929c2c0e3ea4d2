// The edit-format benchmark: every format runs the same generated tasks, once with no mistake and once
// per mistake kind the format can suffer, and the result lines are summed into one table.
import type { ResultLineInput } from "../result.js";
import { EDIT_FORMATS, type EditFormatName, MISTAKES_BY_FORMAT, type MistakeKind } from "./edits.js";
import type { MutationKind } from "./mutations.js";
import { runEditTask } from "./run-task.js";
import { type CorpusFile, generateTasks, loadCorpus } from "./tasks.js";

export interface EditBenchOptions {
  readonly seed: number;
  /** Chance that an edit attempt carries the mistake (a retry: half of it). */
  readonly rate: number;
  readonly perKind?: number;
  readonly formats?: readonly EditFormatName[];
  /** Mistake kinds to run ("none" is the run without mistakes); default: all the format can suffer. */
  readonly mistakes?: readonly (MistakeKind | "none")[];
  readonly mutations?: readonly MutationKind[];
  readonly corpus?: readonly CorpusFile[];
  /** Called with each result line as it is made. */
  readonly onResult?: (line: ResultLineInput) => void | Promise<void>;
}

/** One row of the table: a format under one mistake kind. */
export interface EditBenchRow {
  readonly format: string;
  readonly mistake: string;
  readonly tasks: number;
  readonly passed: number;
  readonly failedEditCallsPerTask: number;
  readonly extraTurnsPerTask: number;
  readonly tokensPerTask: number;
  /** Edit attempts that carried the mistake, per task. */
  readonly injectedPerTask: number;
  /** Tasks where an edit was answered as applied and the file ended up wrong. */
  readonly silentCorruptions: number;
  readonly refusals: number;
  /** Refusals that name neither the line the fix goes on nor its neighbour. */
  readonly nonActionableRefusals: number;
}

/** Runs the benchmark and returns every result line. */
export async function runEditBench(options: EditBenchOptions): Promise<ResultLineInput[]> {
  const tasks = generateTasks(options.corpus ?? loadCorpus(), {
    seed: options.seed,
    ...(options.perKind === undefined ? {} : { perKind: options.perKind }),
    ...(options.mutations ? { kinds: options.mutations } : {}),
  });
  const lines: ResultLineInput[] = [];
  for (const format of options.formats ?? EDIT_FORMATS) {
    const kinds = ["none" as const, ...MISTAKES_BY_FORMAT[format]].filter(
      (kind) => !options.mistakes || options.mistakes.includes(kind),
    );
    for (const kind of kinds) {
      const plan = kind === "none" ? { kind: undefined, rate: 0 } : { kind, rate: options.rate };
      for (const task of tasks) {
        const line = await runEditTask(task, format, { ...plan, seed: options.seed });
        lines.push(line);
        await options.onResult?.(line);
      }
    }
  }
  return lines;
}

/** Sums result lines into rows, one per format and mistake kind, in the order first seen. */
export function summarize(lines: readonly ResultLineInput[]): EditBenchRow[] {
  const groups = new Map<string, ResultLineInput[]>();
  for (const line of lines) {
    const key = `${line.format}\u0000${mistakeOf(line)}`;
    groups.set(key, [...(groups.get(key) ?? []), line]);
  }
  return [...groups].map(([key, group]) => {
    const [format = "", mistake = ""] = key.split("\u0000");
    const sum = (value: (line: ResultLineInput) => number) =>
      group.reduce((total, line) => total + value(line), 0);
    const per = (value: (line: ResultLineInput) => number) => sum(value) / group.length;
    return {
      format,
      mistake,
      tasks: group.length,
      passed: group.filter((line) => line.pass).length,
      failedEditCallsPerTask: per((line) => line.failedEditCalls),
      extraTurnsPerTask: per((line) => line.metrics?.extraTurns ?? 0),
      tokensPerTask: per((line) => line.inputTokens + line.outputTokens),
      injectedPerTask: per((line) => line.metrics?.injectedMistakes ?? 0),
      silentCorruptions: sum((line) => line.metrics?.silentCorruption ?? 0),
      refusals: sum((line) => line.metrics?.refusals ?? 0),
      nonActionableRefusals: sum((line) => line.metrics?.nonActionableRefusals ?? 0),
    };
  });
}

/** The mistake kind of a line, read back from its script name ("kind@rate/seedN"). */
function mistakeOf(line: ResultLineInput): string {
  return (line.script ?? "none").split("@")[0] ?? "none";
}

/** The rows as a Markdown table. */
export function formatTable(rows: readonly EditBenchRow[]): string {
  const out = [
    "| format | injected mistake | tasks | success | failed edit calls / task | extra turns / task | tokens / task | mistakes made / task | silent corruptions | refusals without a hint |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const row of rows) {
    const success = `${((100 * row.passed) / row.tasks).toFixed(1)}%`;
    out.push(
      `| ${row.format} | ${row.mistake} | ${row.tasks} | ${success} | ${row.failedEditCallsPerTask.toFixed(2)} | ${row.extraTurnsPerTask.toFixed(2)} | ${Math.round(row.tokensPerTask)} | ${row.injectedPerTask.toFixed(2)} | ${row.silentCorruptions} | ${row.nonActionableRefusals} of ${row.refusals} |`,
    );
  }
  return out.join("\n");
}
