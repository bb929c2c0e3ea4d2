// One measured session of one agent: spawn it against the loopback model, let it take N shell tool turns,
// and turn the server's timestamps into the harness's own figures.
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { AgentSpec } from "./agents.js";
import { LoopbackModel, READ_PATH, type TurnTiming, type TurnTool } from "./loopback.js";
import { prefixShare } from "./prefix.js";

export interface SessionOptions {
  readonly toolTurns: number;
  /** What each turn calls (default "shell"). */
  readonly tool?: TurnTool;
  /** Extra node flags for the agent (a CPU profile, say). */
  readonly nodeFlags?: readonly string[];
  /** Give up on the agent after this long (default 10 minutes). */
  readonly timeoutMs?: number;
  /** The node binary that runs the agent (default: this process's). */
  readonly node?: string;
  /** Tell the agent a context window this small (tokens), so the session compacts. */
  readonly contextWindow?: number;
  /** The command each shell turn asks for (default `echo turn {n}`). */
  readonly command?: string;
}

/** What one session measured. Times are milliseconds, sizes bytes. */
export interface SessionFigures {
  readonly agent: string;
  readonly version: string | undefined;
  readonly toolTurns: number;
  /** Spawn to the first model request. */
  readonly coldStartMs: number;
  readonly firstRequestBytes: number;
  readonly lastRequestBytes: number;
  /** Per tool turn: end of a model response to the next request (index 0 is tool turn 1). */
  readonly turnMs: readonly number[];
  readonly medianTurnMs: number;
  /** Median of the first and of the last tenth of the turns (at least one turn each): growth over the session. */
  readonly earlyTurnMs: number;
  readonly lateTurnMs: number;
  readonly peakRssBytes: number | undefined;
  /**
   * CPU time of the agent and its reaped children between the first and the final request, per tool turn:
   * the work behind the harness time, steady where wall time swings with the machine's load.
   */
  readonly cpuPerTurnMs: number;
  /**
   * The share of each request's bytes (tools, system, messages as sent) that the next request repeats
   * exactly, over the requests before the first compaction; 1 when every request is a prefix of the next.
   */
  readonly prefixShare: number;
  /** The same from the first request after a compaction on; NaN when the session never compacted. */
  readonly prefixShareAfterCompaction: number;
  /** Compaction summary requests the agent made. */
  readonly compactions: number;
  /** Spawn to exit. */
  readonly wallMs: number;
  readonly exitCode: number | null;
  /** Why the session does not count, when it does not. */
  readonly problems: readonly string[];
}

/** Runs one session of `agent` and returns its figures (problems listed, never thrown). */
export async function measureSession(agent: AgentSpec, options: SessionOptions): Promise<SessionFigures> {
  const root = await mkdtemp(join(tmpdir(), `bridle-overhead-${agent.name}-`));
  const workspace = join(root, "work");
  const home = join(root, "home");
  const model = await LoopbackModel.start({
    toolTurns: options.toolTurns,
    tool: options.tool ?? "shell",
    ...(options.command ? { command: options.command } : {}),
    workspace,
  });
  try {
    await mkdir(workspace, { recursive: true });
    await mkdir(home, { recursive: true });
    await writeWorkspace(workspace);
    const launch = agent.launch({
      baseUrl: model.baseUrl,
      workspace,
      home,
      prompt: "Call the tools you are asked for, one per turn.",
      ...(options.nodeFlags ? { nodeFlags: options.nodeFlags } : {}),
      ...(options.contextWindow ? { contextWindow: options.contextWindow } : {}),
    });
    const started = performance.now();
    const child = spawn(launch.executable ?? options.node ?? process.execPath, launch.args, {
      cwd: workspace,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...launch.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    model.pid = child.pid;
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    const timeout = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 600_000);
    const exitCode = await new Promise<number | null>((resolve) => {
      child.on("close", (code) => resolve(code));
      child.on("error", (error) => {
        stderr += String(error);
        resolve(null);
      });
    });
    clearTimeout(timeout);
    const wallMs = performance.now() - started;
    const problems = [...model.problems];
    if (model.timings.length !== options.toolTurns + 1) {
      problems.push(
        `expected ${options.toolTurns + 1} model requests, got ${model.timings.length}; exit ${exitCode}; ${stderr.trim().slice(-600)}`,
      );
    }
    return figures(agent, options.toolTurns, started, model, { wallMs, exitCode, problems });
  } finally {
    await model.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Files in the bench's workspace: a small project, so per-turn work that grows with the tree shows. */
export const WORKSPACE_FILES = 200;

/**
 * A git repository with one commit, as agents meet one: README.md and WORKSPACE_FILES small modules in
 * ten folders. Every agent gets the same tree.
 */
export async function writeWorkspace(workspace: string): Promise<void> {
  await writeFile(join(workspace, READ_PATH), "# bench\n\nA workspace for the overhead benchmark.\n");
  for (let i = 0; i < WORKSPACE_FILES; i++) {
    const dir = join(workspace, "src", `part${i % 10}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `module${i}.js`), `export function f${i}(x) {\n  return x + ${i};\n}\n`);
  }
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: workspace,
      stdio: "ignore",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "bench",
        GIT_AUTHOR_EMAIL: "bench@example.invalid",
        GIT_COMMITTER_NAME: "bench",
        GIT_COMMITTER_EMAIL: "bench@example.invalid",
      },
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "bench workspace");
  // A repository as agents meet one is not brand new: Bridle's git calls keep a repository's config
  // listing only once its .git/config has been quiet for 2 s (packages/coding/src/git.ts), so a session
  // started at once would pay a second git process per call that no user's older repository pays.
  await new Promise((resolve) => setTimeout(resolve, CONFIG_QUIET_MS));
}

const CONFIG_QUIET_MS = 2_500;

function figures(
  agent: AgentSpec,
  toolTurns: number,
  started: number,
  model: LoopbackModel,
  end: { wallMs: number; exitCode: number | null; problems: string[] },
): SessionFigures {
  const timings = model.timings;
  const turnMs = harnessTimes(timings);
  const tenth = Math.max(1, Math.floor(turnMs.length / 10));
  return {
    agent: agent.name,
    version: agent.version,
    toolTurns,
    coldStartMs: timings[0] ? timings[0].requestAt - started : Number.NaN,
    firstRequestBytes: timings[0]?.requestBytes ?? 0,
    lastRequestBytes: timings.at(-1)?.requestBytes ?? 0,
    turnMs,
    medianTurnMs: median(turnMs),
    earlyTurnMs: median(turnMs.slice(0, tenth)),
    lateTurnMs: median(turnMs.slice(-tenth)),
    peakRssBytes: model.peakRssBytes,
    cpuPerTurnMs:
      model.cpuAtFirstMs === undefined || model.cpuAtFinalMs === undefined
        ? Number.NaN
        : (model.cpuAtFinalMs - model.cpuAtFirstMs) / Math.max(1, turnMs.length),
    prefixShare: prefixShare(model.prefix.pairs.filter((pair) => !pair.afterCompaction)),
    prefixShareAfterCompaction: prefixShare(model.prefix.pairs.filter((pair) => pair.afterCompaction)),
    compactions: model.summaries,
    wallMs: end.wallMs,
    exitCode: end.exitCode,
    problems: end.problems,
  };
}

/** For each request after the first: its arrival minus the end of the previous response. */
export function harnessTimes(timings: readonly TurnTiming[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < timings.length; i++) {
    const previous = timings[i - 1] as TurnTiming;
    out.push((timings[i] as TurnTiming).requestAt - previous.respondedAt);
  }
  return out;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
