import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { type ToolCallEnv, Workspace } from "@bridle/core";
import { locateRipgrep } from "@bridle/tools-fs";
import { afterAll, test } from "vitest";
import { createJsonlSearchTool, type JsonlSearchDetails } from "../src/index.js";
import { generateLog } from "./generate.js";

// jsonl_search beside a bare `rg` of the same prefilter over one generated log (1 GB by default;
// JSONL_BENCH_MB=200 for a smaller one), in one run. Each iteration runs both, alternating which goes
// first; the figures are medians of the paired ratios. The log is deleted after the run.

const megabytes = Number(process.env.JSONL_BENCH_MB ?? 1024);
const started = performance.now();
const log = await generateLog(megabytes);
console.log(
  `[bench] generated ${(log.bytes / 1024 / 1024).toFixed(0)} MiB, ${log.rows.toLocaleString("en-US")} rows in ${((performance.now() - started) / 1000).toFixed(1)} s at ${log.file}`,
);
afterAll(() => log.remove());
const rg = await locateRipgrep();
const tool = createJsonlSearchTool({ timeoutMs: 3_600_000 });
const context: ToolCallEnv = {
  signal: new AbortController().signal,
  workspace: new Workspace(log.dir),
  runId: "bench",
  toolCallId: "bench",
  progress: () => {},
};
const iterations = Number(process.env.JSONL_BENCH_ITERATIONS ?? 5);
const options = { time: 0, iterations, warmupIterations: 0 };

/** The bare prefilter: rg over the file, output drained and counted (what jsonl_search starts from). */
function bare(literal: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, ["--no-config", "--fixed-strings", "--line-number", "--", literal, log.file], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    let lines = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
    });
    child.on("error", reject);
    child.on("close", () => resolve(lines));
  });
}

async function search(args: Record<string, unknown>): Promise<JsonlSearchDetails> {
  const output = await tool.execute(
    tool.inputSchema.parse({ path: "app.jsonl", limit: 200, ...args }),
    context,
  );
  return output.details as JsonlSearchDetails;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const cases = [
  {
    name: "rare value (user = needle-7731, 1 row in 100,000)",
    prefilter: '"needle-7731"',
    args: { filters: [{ field: "user", equals: "needle-7731" }], fields: ["ts", "req.id"] },
  },
  {
    name: "error rows with req.ms >= 995 (prefilter passes 1 line in 1,000)",
    prefilter: '"error"',
    args: {
      filters: [
        { field: "level", equals: "error" },
        { field: "req.ms", min: 995 },
      ],
    },
  },
  {
    name: "ranges only, req.ms >= 999 and req.id <= 200,000 (prefilter passes every line)",
    prefilter: '"ms"',
    args: {
      filters: [
        { field: "req.ms", min: 999 },
        { field: "req.id", max: 200_000 },
      ],
    },
  },
];

for (const run of cases) {
  const ours: number[] = [];
  const theirs: number[] = [];
  let round = 0;
  let note = "";
  test(`jsonl_search over ${(log.bytes / 1024 / 1024).toFixed(0)} MiB: ${run.name}`, async ({ bench }) => {
    await bench("jsonl_search + bare rg of its prefilter", async () => {
      const timeOurs = async () => {
        const start = performance.now();
        const details = await search(run.args);
        ours.push(performance.now() - start);
        note = `${details.rows.length} rows, ${details.candidates.toLocaleString("en-US")} candidate lines, ${details.malformed} malformed, prefilter ${details.prefilter}`;
        if (details.prefilter !== run.prefilter) {
          throw new Error(`prefilter is ${details.prefilter}, the bench compares with ${run.prefilter}`);
        }
      };
      const timeTheirs = async (literal: string) => {
        const start = performance.now();
        const lines = await bare(literal);
        theirs.push(performance.now() - start);
        return lines;
      };
      let lines: number;
      if (round++ % 2 === 0) {
        await timeOurs();
        lines = await timeTheirs(run.prefilter);
      } else {
        lines = await timeTheirs(run.prefilter);
        await timeOurs();
      }
      if (ours.length === iterations) {
        const paired = median(ours.map((value, index) => value / (theirs[index] as number)));
        console.log(
          `[bench] ${run.name}: jsonl_search median ${median(ours).toFixed(0)} ms, bare rg median ${median(theirs).toFixed(0)} ms, median paired ratio ${paired.toFixed(2)}x (${iterations} runs each; ${note}; rg printed ${lines.toLocaleString("en-US")} lines)`,
        );
      }
    }).run(options);
  });
}
