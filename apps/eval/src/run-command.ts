// `bridle-eval run PATH…`: plans task × script × repetition, runs them with bounded concurrency, appends
// one results line per run (resumable), then writes the HTML report.
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { SessionStore } from "@bridle/core";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import type { SandboxMode } from "./compose.js";
import { BridleEvalError } from "./errors.js";
import { defaultModel, type ModelChoice, PROVIDERS, type ProviderName, providerModel } from "./models.js";
import { mapPool } from "./pool.js";
import { progressBar } from "./progress.js";
import type { QueueRunOptions } from "./queue.js";
import { writeReport } from "./report/write.js";
import { parseResultLines, type ResultLine, runKey } from "./result.js";
import { expectOf, modelName, type RunnerOptions, type RunPlan, runTask } from "./runner.js";
import { findTaskDirs, loadTask, type Task } from "./task.js";
import { writeViewPage } from "./view-page.js";

export const RUN_USAGE = `usage: bridle-eval run PATH... [options]
  PATH                 a task folder (holding task.yaml), or a folder of tasks or suites
  --out FILE           results JSONL (default .bridle-eval/results.jsonl); events go beside it in events/
  --report FILE        the HTML report (default: report.html beside the results); --no-report for none
  --resume             keep FILE's lines and skip the runs they already hold
  --provider NAME      scripted (default, no key) | openai | openai-chat | anthropic
  --model NAME         the provider's model; --base-url URL for an OpenAI-compatible or proxy server
  --runs N             repetitions of each task (default 1)
  --concurrency N      runs at once (default 2)
  --script NAME        scripted runs: only this script of each task (default: every script expected to pass)
  --all-scripts        scripted runs: also scripts expected to fail (deliberately bad agents)
  --timeout MS         per-run time budget, overriding the tasks' limits.timeoutMs
  --max-tokens N       per-run token budget, overriding the tasks' limits.maxTokens
  --sandbox MODE       auto (default) | bwrap | off, as for bridle
  --keep               keep each run's temporary workspace
  --queue              send the runs to \`bridle-eval worker\` processes through the durable queue (Postgres);
                       --database-url URL (or BRIDLE_DATABASE_URL); --concurrency is then runs in flight`;

export interface RunSummary {
  readonly lines: readonly ResultLine[];
  readonly outFile: string;
  readonly reportFile: string | undefined;
  /** Runs whose check disagreed with what their script expected (live runs: failed checks). */
  readonly unexpected: readonly ResultLine[];
}

export interface RunCommandOptions {
  /** Test only: the command policy off and every approval granted (see ComposeOptions.unguarded). */
  readonly unguarded?: boolean;
  readonly stderr?: NodeJS.WriteStream;
}

function positiveInt(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) {
    throw new BridleEvalError("InvalidArgs", `${flag} must be a whole number of at least 1, not "${value}"`);
  }
  return Number(value);
}

export async function runCommand(
  argv: readonly string[],
  options: RunCommandOptions = {},
): Promise<RunSummary> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new BridleEvalError("InvalidArgs", `${(error as Error).message}\n${RUN_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new BridleEvalError("InvalidArgs", RUN_USAGE);
  const provider = (values.provider ?? "scripted") as ProviderName;
  if (!PROVIDERS.includes(provider)) {
    throw new BridleEvalError(
      "InvalidArgs",
      `--provider must be one of ${PROVIDERS.join(", ")}, not "${provider}"`,
    );
  }
  const sandbox = (values.sandbox ?? "auto") as SandboxMode;
  if (!["auto", "bwrap", "off"].includes(sandbox)) {
    throw new BridleEvalError("InvalidArgs", `--sandbox must be auto, bwrap or off, not "${sandbox}"`);
  }
  const choice: ModelChoice = {
    provider,
    model: values.model ?? (await defaultModel(provider)),
    ...(values["base-url"] ? { baseUrl: values["base-url"] } : {}),
  };
  const runs = positiveInt(values.runs, "--runs", 1);
  const concurrency = positiveInt(values.concurrency, "--concurrency", 2);
  const timeoutMs = values.timeout === undefined ? undefined : positiveInt(values.timeout, "--timeout", 1);
  const maxTokens =
    values["max-tokens"] === undefined ? undefined : positiveInt(values["max-tokens"], "--max-tokens", 1);
  // A live provider is checked before anything runs: a missing key is one line, not N failed runs.
  if (provider !== "scripted") await providerModel(choice, process.env);

  const tasks: Task[] = [];
  for (const dir of await findTaskDirs(positionals)) {
    const task = await loadTask(dir);
    const limits = {
      ...task.spec.limits,
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(maxTokens ? { maxTokens } : {}),
    };
    tasks.push({ ...task, spec: { ...task.spec, limits } });
  }
  const plans = planRuns(tasks, {
    live: provider !== "scripted",
    runs,
    ...(values.script ? { script: values.script } : {}),
    allScripts: Boolean(values["all-scripts"]),
  });

  const outFile = resolve(values.out ?? ".bridle-eval/results.jsonl");
  const outDir = dirname(outFile);
  const storeDir = join(outDir, "events");
  await mkdir(outDir, { recursive: true });
  let previous: ResultLine[] = [];
  if (values.resume) {
    const text = await readFile(outFile, "utf8").catch(() => "");
    previous = parseResultLines(text);
  } else {
    await writeFile(outFile, "");
  }
  const done = new Set(previous.map(runKey));
  const format = (plan: RunPlan) => ({
    suite: plan.task.spec.suite,
    taskId: plan.task.spec.id,
    provider,
    model: modelName(choice),
    format: plan.task.spec.format,
    script: plan.script,
    runIndex: plan.runIndex,
  });
  const todo = plans.filter((plan) => !done.has(runKey(format(plan))));

  const databaseUrl = values["database-url"] ?? process.env.BRIDLE_DATABASE_URL;
  if (values.queue && !databaseUrl) {
    throw new BridleEvalError("InvalidArgs", "--queue needs --database-url (or BRIDLE_DATABASE_URL)");
  }
  if (values.queue && options.unguarded)
    throw new BridleEvalError("InvalidArgs", "--queue runs are never unguarded");
  const eventsDir = relative(outDir, join(storeDir, "sessions"));
  // In-process runs record into a JSONL store beside the results; queued runs into the workers' Postgres.
  const execute = values.queue
    ? await queueExecutor(databaseUrl as string, {
        model: choice,
        sandbox,
        outDir,
        eventsDir,
        keep: Boolean(values.keep),
      })
    : await localExecutor(storeDir, {
        model: choice,
        ...(provider !== "scripted" ? { liveModel: () => providerModel(choice, process.env) } : {}),
        eventsDir,
        sandbox,
        ...(values.keep ? { keep: true } : {}),
        ...(options.unguarded ? { unguarded: true } : {}),
      });
  const stderr = options.stderr ?? process.stderr;
  const progress = progressBar(todo.length, stderr);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once("SIGINT", onSigint);
  let lines: ResultLine[];
  try {
    lines = await mapPool(todo, concurrency, async (plan) => {
      if (controller.signal.aborted) return undefined;
      const ran = await execute.run(plan, controller.signal);
      const page = await writeViewPage(execute.store, ran.sessionId, outDir);
      const line: ResultLine = {
        ...ran,
        ...(page.viewPath ? { viewPath: page.viewPath } : {}),
        ...(page.note ? { notes: [...ran.notes, page.note] } : {}),
      };
      // Appended as each run ends, so an interrupted eval resumes where it stopped.
      await appendFile(outFile, `${JSON.stringify(line)}\n`);
      progress.tick(
        `${plan.task.spec.suite}/${plan.task.spec.id} ${plan.script}`,
        line.pass === expected(plan),
      );
      return line;
    }).then((all) => all.filter((line): line is ResultLine => line !== undefined));
  } finally {
    process.off("SIGINT", onSigint);
    progress.done();
    await execute.close();
  }
  const expectations = new Map(plans.map((plan) => [runKey(format(plan)), expected(plan)]));
  const all = [...previous, ...lines];
  const unexpected = all.filter(
    (line) => expectations.has(runKey(line)) && line.pass !== expectations.get(runKey(line)),
  );
  let reportFile: string | undefined;
  if (!values["no-report"]) {
    reportFile = resolve(values.report ?? join(outDir, "report.html"));
    await writeReport(all, { file: reportFile, resultsFile: outFile });
  }
  return { lines: all, outFile, reportFile, unexpected };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      out: { type: "string" },
      report: { type: "string" },
      "no-report": { type: "boolean" },
      resume: { type: "boolean" },
      provider: { type: "string" },
      model: { type: "string" },
      "base-url": { type: "string" },
      runs: { type: "string" },
      concurrency: { type: "string" },
      script: { type: "string" },
      "all-scripts": { type: "boolean" },
      timeout: { type: "string" },
      "max-tokens": { type: "string" },
      sandbox: { type: "string" },
      keep: { type: "boolean" },
      queue: { type: "boolean" },
      "database-url": { type: "string" },
    },
  });
}

const expected = (plan: RunPlan): boolean => expectOf(plan) === "pass";

export function planRuns(
  tasks: readonly Task[],
  options: { live: boolean; runs: number; script?: string; allScripts: boolean },
): RunPlan[] {
  const plans: RunPlan[] = [];
  const seen = new Map<string, string>();
  for (const task of tasks) {
    const name = `${task.spec.suite}/${task.spec.id}`;
    const other = seen.get(name);
    if (other)
      throw new BridleEvalError("InvalidTask", `${task.dir} and ${other} are both ${name}: ids must differ`);
    seen.set(name, task.dir);
    let scripts: string[];
    if (options.live) scripts = ["live"];
    else if (options.script) scripts = task.scripts[options.script] ? [options.script] : [];
    else {
      scripts = Object.entries(task.scripts)
        .filter(([, script]) => options.allScripts || script.expect === "pass")
        .map(([name]) => name);
    }
    for (const script of scripts) {
      for (let runIndex = 0; runIndex < options.runs; runIndex++) plans.push({ task, script, runIndex });
    }
  }
  if (plans.length === 0) {
    throw new BridleEvalError(
      "InvalidArgs",
      options.live
        ? "no tasks to run"
        : "no scripted runs: the tasks have no script.json (or not the named script); pass --provider for a live model",
    );
  }
  return plans;
}

interface Executor {
  run(plan: RunPlan, signal: AbortSignal): Promise<ResultLine>;
  /** Where the runs are recorded, for their viewer pages. */
  readonly store: SessionStore;
  close(): Promise<void>;
}

async function localExecutor(
  storeDir: string,
  options: Omit<RunnerOptions, "store" | "signal">,
): Promise<Executor> {
  const store = await JsonlSessionStore.open({ dir: storeDir, durability: "batch" });
  return {
    store,
    run: (plan, signal) => runTask(plan, { ...options, store, signal }),
    close: () => store.close(),
  };
}

async function queueExecutor(
  databaseUrl: string,
  options: Omit<QueueRunOptions, "queue" | "store">,
): Promise<Executor> {
  const { openQueue, runQueued } = await import("./queue.js");
  const { queue, store } = await openQueue(databaseUrl);
  return {
    store,
    run: (plan) => runQueued(plan, { ...options, queue, store }),
    close: async () => {
      await queue.close();
      await store.close();
    },
  };
}
