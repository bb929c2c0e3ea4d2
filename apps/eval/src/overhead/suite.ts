// The overhead suite: sessions of every available agent, interleaved round by round so a busy machine
// weighs on all of them alike, summed into one row per agent.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type AgentSpec, bridleAgent, claudeAgent, codexAgent, peerCacheDir, piAgent } from "./agents.js";
import { measureSession, median, type SessionFigures, type SessionOptions } from "./measure.js";

export interface OverheadRow {
  readonly agent: string;
  readonly version: string;
  readonly sessions: number;
  readonly medianTurnMs: number;
  readonly earlyTurnMs: number;
  readonly lateTurnMs: number;
  readonly coldStartMs: number;
  readonly firstRequestBytes: number;
  readonly peakRssMb: number;
  readonly cpuPerTurnMs: number;
  /** The share of each request the next repeats byte for byte (prefixShare in SessionFigures). */
  readonly prefixShare: number;
  readonly prefixShareAfterCompaction: number;
  readonly problems: readonly string[];
}

/** Bridle's built CLI beside this package in the monorepo (apps/cli/dist/main.js). */
export function defaultBridleScript(): string {
  const here = fileURLToPath(new URL(".", import.meta.url));
  const evalRoot = here.includes(join("src", "overhead")) ? join(here, "..", "..") : join(here, "..");
  return join(evalRoot, "..", "cli", "dist", "main.js");
}

/**
 * The agents to compare: Bridle, pi's coding agent from the bench cache (installed there with npm from
 * the registry when `install` is set and it is missing), and Claude Code and Codex where installed there.
 */
export function availableAgents(options: { bridle: string; install: boolean; log?: (line: string) => void }) {
  const agents: AgentSpec[] = [bridleAgent(options.bridle)];
  const piRoot = peerCacheDir("pi");
  if (options.install && !existsSync(join(piRoot, "node_modules", "@mariozechner", "pi-coding-agent"))) {
    options.log?.(`installing @mariozechner/pi-coding-agent into ${piRoot} (npm)`);
    installPeer(piRoot, "@mariozechner/pi-coding-agent");
  }
  agents.push(piAgent(piRoot));
  // Claude Code and Codex join where their npm packages are installed in the bench cache; the bench never
  // installs them (they are large, and their terms are theirs to accept).
  agents.push(claudeAgent(peerCacheDir("claude")), codexAgent(peerCacheDir("codex")));
  return agents;
}

function installPeer(root: string, spec: string): void {
  mkdirSync(root, { recursive: true });
  if (!existsSync(join(root, "package.json"))) {
    writeFileSync(
      join(root, "package.json"),
      `${JSON.stringify({ name: "bridle-bench-peer", private: true })}\n`,
    );
  }
  // npm beside the node binary that runs us: the same Node the agents will run on.
  const npm = join(dirname(process.execPath), "npm");
  const result = spawnSync(existsSync(npm) ? npm : "npm", ["install", "--no-audit", "--no-fund", spec], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` },
  });
  if (result.status !== 0) throw new Error(`npm install ${spec} failed in ${root} (exit ${result.status})`);
}

/** Runs `rounds` sessions of each installed agent, alternating agents within each round. */
export async function runOverhead(
  agents: readonly AgentSpec[],
  options: SessionOptions & { readonly rounds: number; readonly onSession?: (f: SessionFigures) => void },
): Promise<SessionFigures[]> {
  const out: SessionFigures[] = [];
  const present = agents.filter((agent) => agent.script !== undefined);
  for (let round = 0; round < options.rounds; round++) {
    for (const agent of present) {
      const figures = await measureSession(agent, options);
      out.push(figures);
      options.onSession?.(figures);
    }
  }
  return out;
}

/** One row per agent: medians over its valid sessions. */
export function summarizeOverhead(sessions: readonly SessionFigures[]): OverheadRow[] {
  const byAgent = new Map<string, SessionFigures[]>();
  for (const session of sessions)
    byAgent.set(session.agent, [...(byAgent.get(session.agent) ?? []), session]);
  return [...byAgent].map(([agent, all]) => {
    const valid = all.filter((s) => s.problems.length === 0);
    const pick = (value: (s: SessionFigures) => number) => median(valid.map(value));
    return {
      agent,
      version: all[0]?.version ?? "?",
      sessions: valid.length,
      medianTurnMs: pick((s) => s.medianTurnMs),
      earlyTurnMs: pick((s) => s.earlyTurnMs),
      lateTurnMs: pick((s) => s.lateTurnMs),
      coldStartMs: pick((s) => s.coldStartMs),
      firstRequestBytes: pick((s) => s.firstRequestBytes),
      peakRssMb: pick((s) => (s.peakRssBytes ?? Number.NaN) / 1024 / 1024),
      cpuPerTurnMs: pick((s) => s.cpuPerTurnMs),
      prefixShare: pick((s) => s.prefixShare),
      prefixShareAfterCompaction: pick((s) => s.prefixShareAfterCompaction),
      problems: all.flatMap((s) => s.problems),
    };
  });
}

/** The rows as a Markdown table, with each agent's per-turn time as a ratio of the first row's. */
export function formatOverhead(rows: readonly OverheadRow[], turns: number): string {
  const base = rows[0]?.medianTurnMs ?? Number.NaN;
  const lines = [
    `| agent | version | sessions | harness ms / tool turn (median) | ratio | first 10% of turns | last 10% of turns (of ${turns}) | CPU ms / turn | cold start ms | first request bytes | peak RSS MB | prefix kept | after compaction |`,
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.agent} | ${row.version} | ${row.sessions} | ${row.medianTurnMs.toFixed(2)} | ${(row.medianTurnMs / base).toFixed(2)} | ${row.earlyTurnMs.toFixed(2)} | ${row.lateTurnMs.toFixed(2)} | ${row.cpuPerTurnMs.toFixed(2)} | ${Math.round(row.coldStartMs)} | ${row.firstRequestBytes} | ${row.peakRssMb.toFixed(0)} | ${percent(row.prefixShare)} | ${percent(row.prefixShareAfterCompaction)} |`,
    );
  }
  return lines.join("\n");
}

/** A share as a percentage with two decimals ("–" when nothing was measured). */
function percent(share: number): string {
  return Number.isNaN(share) ? "–" : `${(share * 100).toFixed(2)}%`;
}
