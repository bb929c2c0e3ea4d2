// Start-up: spawn to the first request's arrival at the loopback model, for each agent, spawned again and
// again in one workspace and one home as a person's machine runs it (caches warm after the first start),
// the agents interleaved, with `node -e 0` measured in the same run as the floor no Node CLI goes under.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { AgentSpec, SandboxChoice } from "./agents.js";
import { LoopbackModel } from "./loopback.js";
import { median, writeWorkspace } from "./measure.js";

export interface StartRow {
  readonly agent: string;
  readonly version: string;
  /** Spawn to the first request, every start in order (the first with cold caches). */
  readonly startsMs: readonly number[];
  readonly medianMs: number;
  /** The agent's CPU time (with reaped children) when its first request arrived, median over the starts. */
  readonly cpuMs: number;
  readonly problems: readonly string[];
}

export interface StartOptions {
  /** Starts per agent (default 11). */
  readonly spawns: number;
  /** The node binary (default: this process's). */
  readonly node?: string;
  /** Extra node flags for the agents (a CPU profile, say). */
  readonly nodeFlags?: readonly string[];
  /** Bridle's sandbox (default off, as the other measurements run it). */
  readonly sandbox?: SandboxChoice;
}

/** `node -e 0`'s median and each agent's row, the spawns interleaved so load weighs on all alike. */
export async function measureStarts(
  agents: readonly AgentSpec[],
  options: StartOptions,
): Promise<{ nodeMs: number; rows: StartRow[] }> {
  const node = options.node ?? process.execPath;
  const present = agents.filter((agent) => agent.script !== undefined);
  const places = await Promise.all(present.map((agent) => startPlace(agent)));
  const rows = present.map((agent) => ({
    agent: agent.name,
    version: agent.version ?? "?",
    startsMs: [] as number[],
    cpus: [] as number[],
    problems: [] as string[],
  }));
  const bare: number[] = [];
  try {
    for (let round = 0; round < options.spawns; round++) {
      bare.push(await exitTime(node, ["-e", "0"]));
      for (const [i, agent] of present.entries()) {
        const row = rows[i] as (typeof rows)[number];
        const start = await oneStart(agent, places[i] as Place, node, options);
        if (start.problem) row.problems.push(start.problem);
        else {
          row.startsMs.push(start.ms);
          row.cpus.push(start.cpuMs);
        }
      }
    }
  } finally {
    for (const place of places) await rm(place.root, { recursive: true, force: true });
  }
  return {
    nodeMs: median(bare),
    rows: rows.map(({ cpus, ...row }) => ({ ...row, medianMs: median(row.startsMs), cpuMs: median(cpus) })),
  };
}

/** The rows as a Markdown table. */
export function formatStarts(result: { nodeMs: number; rows: readonly StartRow[] }, spawns: number): string {
  const lines = [
    `| agent | version | starts | spawn to first request ms (median of ${spawns}) | first start ms | CPU ms at first request |`,
    "|---|---|---:|---:|---:|---:|",
    `| node -e 0 | ${process.versions.node} | ${spawns} | ${Math.round(result.nodeMs)} (to exit) | | |`,
  ];
  for (const row of result.rows) {
    lines.push(
      `| ${row.agent} | ${row.version} | ${row.startsMs.length} | ${Math.round(row.medianMs)} | ${Math.round(row.startsMs[0] ?? Number.NaN)} | ${Math.round(row.cpuMs)} |`,
    );
  }
  return lines.join("\n");
}

interface Place {
  readonly root: string;
  readonly workspace: string;
  readonly home: string;
}

async function startPlace(agent: AgentSpec): Promise<Place> {
  const root = await mkdtemp(join(tmpdir(), `bridle-start-${agent.name}-`));
  const place = { root, workspace: join(root, "work"), home: join(root, "home") };
  await mkdir(place.workspace, { recursive: true });
  await mkdir(place.home, { recursive: true });
  await writeWorkspace(place.workspace);
  return place;
}

/** One start: the model answers the first request with a final text, so the agent ends as it would. */
async function oneStart(
  agent: AgentSpec,
  place: Place,
  node: string,
  options: Pick<StartOptions, "nodeFlags" | "sandbox">,
): Promise<{ ms: number; cpuMs: number; problem?: string }> {
  const model = await LoopbackModel.start({ toolTurns: 0 });
  try {
    const launch = agent.launch({
      baseUrl: model.baseUrl,
      workspace: place.workspace,
      home: place.home,
      prompt: "Say done.",
      ...(options.nodeFlags ? { nodeFlags: options.nodeFlags } : {}),
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    });
    const started = performance.now();
    const child = spawn(launch.executable ?? node, launch.args, {
      cwd: place.workspace,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...launch.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    model.pid = child.pid;
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    const timeout = setTimeout(() => child.kill("SIGKILL"), 120_000);
    const exitCode = await new Promise<number | null>((resolve) => {
      child.on("close", (code) => resolve(code));
      child.on("error", () => resolve(null));
    });
    clearTimeout(timeout);
    const first = model.timings[0];
    if (!first || model.problems.length > 0) {
      return {
        ms: Number.NaN,
        cpuMs: Number.NaN,
        problem: `${agent.name}: no first request (exit ${exitCode}) ${[...model.problems, stderr.trim().slice(-400)].join("; ")}`,
      };
    }
    return { ms: first.requestAt - started, cpuMs: model.cpuAtFirstMs ?? Number.NaN };
  } finally {
    await model.close();
  }
}

async function exitTime(node: string, args: readonly string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(node, args, { stdio: "ignore" });
  await new Promise((resolve) => child.on("close", resolve));
  return performance.now() - started;
}
