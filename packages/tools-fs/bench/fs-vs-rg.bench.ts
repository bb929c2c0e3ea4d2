import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { type AnyTool, type ToolCallEnv, Workspace } from "@bridle/core";
import { afterAll, test } from "vitest";
import {
  createFsTools,
  type GlobDetails,
  type GrepDetails,
  locateRipgrep,
  ripgrepArgs,
} from "../src/index.js";
import { benchTree } from "./tree.js";

// grep and glob beside the bare ripgrep binary on a tree of 50,000+ real files, in one run. The machine
// is shared, so each iteration runs both, alternating which goes first, and the medians of the recorded
// wall times are compared; identical results are checked before timing.

const tree = await benchTree();
afterAll(() => tree.remove());
const rg = await locateRipgrep();
const kit = createFsTools({ grepMaxMatches: 100_000, maxGlobResults: 10_000_000, grepTimeoutMs: 600_000 });
const context: ToolCallEnv = {
  signal: new AbortController().signal,
  workspace: new Workspace(tree.dir),
  runId: "bench",
  toolCallId: "bench",
  progress: () => {},
};
const options = { time: 0, iterations: 9, warmupIterations: 1 };
const MAX_TEXT = 500;

function bare(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd: tree.dir, stdio: ["ignore", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

async function tool<D>(target: AnyTool, args: Record<string, unknown>): Promise<D> {
  return (await target.execute(target.inputSchema.parse(args), context)).details as D;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

async function time(samples: number[], task: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  await task();
  samples.push(performance.now() - start);
}

/**
 * One iteration: both sides, in alternating order. vitest runs no hooks around benchmarks, so the
 * figures are printed from the iteration that completes the planned count.
 */
function pair(label: string, note: string, tool: () => Promise<unknown>, rgRun: () => Promise<unknown>) {
  const ours: number[] = [];
  const theirs: number[] = [];
  let round = 0;
  return async () => {
    if (round++ % 2 === 0) {
      await time(ours, tool);
      await time(theirs, rgRun);
    } else {
      await time(theirs, rgRun);
      await time(ours, tool);
    }
    if (ours.length === options.iterations) report(label, ours, theirs, note);
  };
}

function report(label: string, ours: number[], theirs: number[], note: string): void {
  if (ours.length < 2) return;
  // The first sample of each is the warm-up. Samples of one iteration ran back to back, so the median of
  // their ratios is the figure least moved by load from other processes.
  const a = median(ours.slice(1));
  const b = median(theirs.slice(1));
  const paired = median(ours.slice(1).map((value, index) => value / (theirs[index + 1] as number)));
  console.log(
    `[bench] ${label}: tool median ${a.toFixed(0)} ms, rg median ${b.toFixed(0)} ms, ratio of medians ${(a / b).toFixed(2)}x, median paired ratio ${paired.toFixed(2)}x (${ours.length - 1} runs each; ${note})`,
  );
}

function rgMatches(output: string): string[] {
  const out: string[] = [];
  for (const line of output.split("\n")) {
    if (!line.includes('"type":"match"')) continue;
    const message = JSON.parse(line) as {
      data: { path: { text: string }; lines: { text?: string }; line_number: number };
    };
    const text = (message.data.lines.text ?? "").replace(/\r?\n$/, "");
    out.push(
      `${message.data.path.text}:${message.data.line_number}:${text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)} …` : text}`,
    );
  }
  return out.sort();
}

type GrepArgs = { pattern: string; include?: string; context?: number; max_matches: number };

/** Both must find exactly the same lines before their times mean anything. */
async function sameMatchesNow(args: GrepArgs, rgArgv: readonly string[]): Promise<string> {
  const details = await tool<GrepDetails>(kit.grep, args);
  const fromTool = details.matches.map((m) => `${m.file}:${m.line}:${m.text}`).sort();
  const fromRg = rgMatches(await bare(rgArgv));
  if (JSON.stringify(fromTool) !== JSON.stringify(fromRg)) {
    throw new Error(`grep and rg disagree: ${fromTool.length} against ${fromRg.length} matches`);
  }
  return `${fromTool.length} identical matches`;
}

async function compareListingsNow(pattern: string, rgArgv: readonly string[]): Promise<string> {
  const files = new Set((await tool<GlobDetails>(kit.glob, { pattern })).files);
  const listed = new Set((await bare(rgArgv)).split("\n").filter(Boolean));
  const onlyGlob = [...files].filter((file) => !listed.has(file)).length;
  const onlyRg = [...listed].filter((file) => !files.has(file)).length;
  return `glob ${files.size} files, rg --files ${listed.size}, ${onlyGlob} only in glob, ${onlyRg} only in rg`;
}

const grepCases: { name: string; args: GrepArgs }[] = [
  { name: "rare literal", args: { pattern: "createFsTools", max_matches: 100_000 } },
  { name: "regex", args: { pattern: "Copyright \\(c\\) Microsoft", max_matches: 100_000 } },
  { name: "literal with 1,000+ matches", args: { pattern: "export default", max_matches: 100_000 } },
  {
    name: "regex, *.js only, 2 lines of context",
    args: { pattern: "TODO\\(", include: "*.js", context: 2, max_matches: 100_000 },
  },
];
const RG_FILES = ["--files", "--no-config", "--hidden", "--no-require-git", "--glob", "!.git"];
const globCases = [
  { pattern: "**/*", rgArgv: RG_FILES },
  { pattern: "**/*.js", rgArgv: [...RG_FILES, "--glob", "*.js"] },
];

// Checked before anything is timed (vitest runs no hooks around benchmarks).
const grepRuns = [];
for (const grepCase of grepCases) {
  const rgArgv = ripgrepArgs({
    pattern: grepCase.args.pattern,
    ...(grepCase.args.include === undefined ? {} : { include: grepCase.args.include }),
    context: grepCase.args.context ?? 0,
    maxFileBytes: 10 * 1024 * 1024,
  });
  grepRuns.push({ ...grepCase, rgArgv, note: await sameMatchesNow(grepCase.args, rgArgv) });
}
const globRuns = [];
for (const globCase of globCases) {
  globRuns.push({ ...globCase, note: await compareListingsNow(globCase.pattern, globCase.rgArgv) });
}
const files = tree.files.toLocaleString("en-US");

for (const run of grepRuns) {
  test(`grep ${run.name} over ${files} files`, async ({ bench }) => {
    await bench(
      `grep tool + bare rg ${run.rgArgv.join(" ")}`,
      pair(
        `grep ${run.name}`,
        run.note,
        () => tool(kit.grep, run.args),
        () => bare(run.rgArgv),
      ),
    ).run(options);
  });
}

for (const run of globRuns) {
  test(`glob ${run.pattern} over ${files} files`, async ({ bench }) => {
    await bench(
      `glob tool + rg ${run.rgArgv.join(" ")}`,
      pair(
        `glob ${run.pattern}`,
        run.note,
        () => tool(kit.glob, { pattern: run.pattern }),
        () => bare(run.rgArgv),
      ),
    ).run(options);
  });
}
