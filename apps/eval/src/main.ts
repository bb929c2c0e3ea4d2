// Entry point of `bridle-eval`: one function per command, dispatched by the first word.
import packageJson from "../package.json" with { type: "json" };
import { editBenchCommand } from "./edit-format/command.js";
import { BridleEvalError } from "./errors.js";
import { explicitEditCommand } from "./explicit-edit/command.js";
import { overheadCommand } from "./overhead/command.js";
import { reportCommand } from "./report-command.js";
import { RUN_USAGE, runCommand } from "./run-command.js";
import { workerCommand } from "./worker-command.js";

const USAGE = `usage: bridle-eval COMMAND ...
  run PATH...                 run task folders (scripted model by default); results JSONL + HTML report
  report RESULTS.jsonl...     write the HTML report of results files (--out FILE, default report.html)
  worker --database-url URL   run queued eval runs (run --queue) until stopped [--concurrency N]
  edit-bench                  the edit-format benchmark: formats x injected mistakes (--help for options)
  overhead                    the harness's own time per tool turn, memory, cold start, beside peer agents
  explicit-edit SOURCE        the public Explicit Edit Benchmark's tasks through Bridle's edit formats
  --version

${RUN_USAGE}
`;

type Command = (argv: readonly string[]) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  run: async (argv) => {
    const summary = await runCommand(argv);
    const good = summary.lines.filter((line) => line.expect === "pass");
    const bad = summary.lines.filter((line) => line.expect === "fail");
    const passed = good.filter((line) => line.pass).length;
    const caught = bad.filter((line) => !line.pass).length;
    const cost = summary.lines.reduce((total, line) => total + (line.costUsd ?? 0), 0);
    process.stderr.write(
      `${summary.lines.length} runs: ${passed} of ${good.length} passed; ${caught} of ${bad.length} bad agents caught (failed as expected); ${summary.unexpected.length} not as expected; cost $${cost.toFixed(4)}\nresults: ${summary.outFile}\n${summary.reportFile ? `report: ${summary.reportFile}\n` : ""}`,
    );
    return summary.unexpected.length === 0 ? 0 : 1;
  },
  report: reportCommand,
  worker: workerCommand,
  "edit-bench": editBenchCommand,
  overhead: overheadCommand,
  "explicit-edit": explicitEditCommand,
};

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v") {
    process.stdout.write(`bridle-eval ${packageJson.version}\n`);
    return 0;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    process.stderr.write(USAGE);
    return 2;
  }
  return command(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof BridleEvalError) {
      process.stderr.write(`bridle-eval: ${error.message}\n`);
      process.exitCode = error.exitCode;
    } else {
      process.stderr.write(`bridle-eval: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
