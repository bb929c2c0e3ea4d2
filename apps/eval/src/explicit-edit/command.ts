// `bridle-eval explicit-edit SOURCE`: the public Explicit Edit Benchmark's tasks through Bridle's edit
// formats, with no model (check mode: the reference edit through each format's tools) or a real one.
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { EDIT_FORMATS, type EditFormatName } from "../edit-format/edits.js";
import { BridleEvalError } from "../errors.js";
import { defaultModel, PROVIDERS, providerModel } from "../models.js";
import { mapPool } from "../pool.js";
import { writeReport } from "../report/write.js";
import { ResultLine } from "../result.js";
import { runExplicitEditTask } from "./run.js";
import { loadExplicitEditTasks } from "./tasks.js";

export const EXPLICIT_EDIT_USAGE = `usage: bridle-eval explicit-edit SOURCE [options]
  SOURCE               a checkout of github.com/alexshpunt/explicit-edit-benchmark, or a JSON task list
  --format LIST        comma-separated: ${EDIT_FORMATS.join(",")} (default all)
  --task LIST          comma-separated task ids (default all)
  --provider NAME      a provider as bridle takes it (openai, anthropic…): give the prompts to a real
                       model (key from the environment); without it, check mode plays the reference edits
  --model NAME         the provider's model; --base-url URL for an OpenAI-compatible server
  --runs N             repetitions of each task and format (default 1)
  --concurrency N      tasks at once (default 2)
  --out FILE           results JSONL (default .bridle-eval/explicit-edit.jsonl); report.html beside it`;

export async function explicitEditCommand(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new BridleEvalError("InvalidArgs", `${(error as Error).message}\n${EXPLICIT_EDIT_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new BridleEvalError("InvalidArgs", EXPLICIT_EDIT_USAGE);
  const formats = (values.format?.split(",") ?? [...EDIT_FORMATS]) as EditFormatName[];
  const unknown = formats.filter((format) => !EDIT_FORMATS.includes(format));
  if (unknown.length > 0) {
    throw new BridleEvalError(
      "InvalidArgs",
      `--format takes ${EDIT_FORMATS.join(", ")}, not ${unknown.join(", ")}`,
    );
  }
  const count = (flag: string, value: string | undefined) => {
    if (value === undefined) return 1;
    if (!/^\d{1,6}$/.test(value) || Number(value) < 1) {
      throw new BridleEvalError(
        "InvalidArgs",
        `${flag} must be a whole number of at least 1, not "${value}"`,
      );
    }
    return Number(value);
  };
  const runs = count("--runs", values.runs);
  const concurrency = values.concurrency === undefined ? 2 : count("--concurrency", values.concurrency);
  const provider = values.provider;
  const live = PROVIDERS.filter((name) => name !== "scripted");
  if (provider !== undefined && !live.includes(provider)) {
    throw new BridleEvalError(
      "InvalidArgs",
      `--provider must be one of ${live.join(", ")}, not "${provider}"`,
    );
  }
  const choice = provider
    ? {
        provider,
        model: values.model ?? (await defaultModel(provider)),
        ...(values["base-url"] ? { baseUrl: values["base-url"] } : {}),
      }
    : undefined;
  // A missing key is one line before anything runs, not a failed run per task.
  if (choice) await providerModel(choice, process.env);

  let tasks = await loadExplicitEditTasks(positionals[0] as string);
  if (values.task) {
    const wanted = values.task.split(",");
    const missing = wanted.filter((id) => !tasks.some((task) => task.id === id));
    if (missing.length > 0)
      throw new BridleEvalError("NotFound", `no task ${missing.join(", ")} in ${positionals[0]}`);
    tasks = tasks.filter((task) => wanted.includes(task.id));
  }
  const outFile = resolve(values.out ?? ".bridle-eval/explicit-edit.jsonl");
  await mkdir(dirname(outFile), { recursive: true });
  await writeFile(outFile, "");
  const plans = tasks.flatMap((task) =>
    formats.flatMap((format) => Array.from({ length: runs }, (_, runIndex) => ({ task, format, runIndex }))),
  );
  const lines = await mapPool(plans, concurrency, async ({ task, format, runIndex }) => {
    const line = ResultLine.parse(
      await runExplicitEditTask(task, {
        format,
        runIndex,
        ...(choice
          ? {
              model: await providerModel(choice, process.env),
              provider: choice.provider,
              modelName: choice.model,
            }
          : {}),
      }),
    );
    await appendFile(outFile, `${JSON.stringify(line)}\n`);
    return line;
  });
  const reportFile = resolve(dirname(outFile), "report.html");
  await writeReport(lines, { file: reportFile, resultsFile: outFile });
  process.stdout.write(`${summaryTable(lines)}\n`);
  process.stderr.write(`results: ${outFile}\nreport: ${reportFile}\n`);
  return lines.every((line) => line.pass) ? 0 : 1;
}

/** Exact passes per format, as the benchmark scores them (the whole tree byte for byte). */
export function summaryTable(lines: readonly ResultLine[]): string {
  const rows = [
    "| format | tasks | exact | failed edit calls |",
    "| ------ | ----: | ----: | ----------------: |",
  ];
  for (const format of [...new Set(lines.map((line) => line.format))]) {
    const group = lines.filter((line) => line.format === format);
    const exact = group.filter((line) => line.pass).length;
    const failed = group.reduce((total, line) => total + line.failedEditCalls, 0);
    rows.push(
      `| ${format} | ${group.length} | ${exact} (${((100 * exact) / group.length).toFixed(1)}%) | ${failed} |`,
    );
  }
  return rows.join("\n");
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      format: { type: "string" },
      task: { type: "string" },
      provider: { type: "string" },
      model: { type: "string" },
      "base-url": { type: "string" },
      runs: { type: "string" },
      concurrency: { type: "string" },
      out: { type: "string" },
    },
  });
}
