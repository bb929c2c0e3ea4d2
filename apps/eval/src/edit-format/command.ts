// `bridle-eval edit-bench`: runs the edit-format benchmark and prints its table; --out writes the result
// lines (the report's JSONL) as they are made.
import { appendFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { ResultLine } from "../result.js";
import { formatTable, runEditBench, summarize } from "./bench.js";
import { EDIT_FORMATS, type EditFormatName, MISTAKE_KINDS, type MistakeKind } from "./edits.js";

export const EDIT_BENCH_USAGE = `Usage: bridle-eval edit-bench [options]

Runs generated edit tasks (one planted bug each, in real source files) in every edit format with a
scripted model that makes the mistakes real models make, and prints success, failed edit calls, extra
turns and tokens per task for each format and mistake kind.

Options:
  --rate R          chance that an edit attempt carries the mistake (default 1; a retry: half of it)
  --seed N          task generation and mistake draws (default 1)
  --per-kind N      tasks per mutation kind per corpus file (default 1)
  --format LIST     comma-separated: ${EDIT_FORMATS.join(",")} (default all)
  --mistake LIST    comma-separated: none,${MISTAKE_KINDS.join(",")} (default all that apply)
  --out FILE        append the result lines (JSONL) to FILE
  -h, --help        this help`;

/** Runs the command; returns the exit code (2 on bad usage, said on stderr). */
export async function editBenchCommand(argv: readonly string[]): Promise<number> {
  try {
    return await editBench(argv);
  } catch (error) {
    const code = String((error as { code?: unknown }).code);
    if (!(error instanceof UsageError) && !code.startsWith("ERR_PARSE_ARGS")) throw error;
    process.stderr.write(`bridle-eval edit-bench: ${(error as Error).message}\n${EDIT_BENCH_USAGE}\n`);
    return 2;
  }
}

async function editBench(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      rate: { type: "string", default: "1" },
      seed: { type: "string", default: "1" },
      "per-kind": { type: "string", default: "1" },
      format: { type: "string" },
      mistake: { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${EDIT_BENCH_USAGE}\n`);
    return 0;
  }
  const rate = Number(values.rate);
  const seed = Number(values.seed);
  const perKind = Number(values["per-kind"]);
  const formats = listOf(values.format, EDIT_FORMATS, "--format");
  const mistakes = listOf(values.mistake, ["none", ...MISTAKE_KINDS] as const, "--mistake");
  if (!(rate >= 0 && rate <= 1) || !Number.isInteger(seed) || !(Number.isInteger(perKind) && perKind > 0)) {
    throw new UsageError("--rate takes 0..1, --seed an integer, --per-kind a positive integer");
  }
  const out = values.out;
  const lines = await runEditBench({
    seed,
    rate,
    perKind,
    ...(formats ? { formats: formats as EditFormatName[] } : {}),
    ...(mistakes ? { mistakes: mistakes as (MistakeKind | "none")[] } : {}),
    ...(out ? { onResult: (line) => appendFile(out, `${JSON.stringify(ResultLine.parse(line))}\n`) } : {}),
  });
  process.stdout.write(
    `${formatTable(summarize(lines))}\n\nbridle-eval edit-bench --rate ${rate} --seed ${seed} --per-kind ${perKind}\n`,
  );
  return 0;
}

function listOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  flag: string,
): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(",").map((item) => item.trim());
  const bad = items.filter((item) => !allowed.includes(item as T));
  if (bad.length > 0)
    throw new UsageError(`${flag}: unknown ${bad.join(", ")} (one of ${allowed.join(", ")})`);
  return items as T[];
}

/** Bad command-line usage (exit code 2). */
export class UsageError extends Error {
  readonly code = "usage";
}
