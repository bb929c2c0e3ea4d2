// `bridle-eval overhead`: the harness's own time per tool turn, its growth over a long session, peak
// memory, first-request bytes and cold start, for Bridle and the peer agents installed beside it.
import { parseArgs } from "node:util";
import type { TurnTool } from "./loopback.js";
import {
  availableAgents,
  defaultBridleScript,
  formatOverhead,
  runOverhead,
  summarizeOverhead,
} from "./suite.js";

export const OVERHEAD_USAGE = `Usage: bridle-eval overhead [options]

Runs one-shot sessions of each agent CLI against a loopback OpenAI-compatible server that scripts one
tool call per turn, and measures, at the server, the time from the end of each response to the next
request (the harness's own time: parsing, the tool, the session write, the next request's encoding).
Shell turns run \`echo\` (so they include starting a process the way each agent isolates it); read turns
read a small file (the harness's own work alone).

Options:
  --turns N         tool turns per session (default 200)
  --rounds N        sessions per agent, interleaved (default 3)
  --tool LIST       shell,read: what each turn calls; one table each (default both)
  --bridle PATH     Bridle's built CLI (default: apps/cli/dist/main.js of this checkout)
  --no-install      do not install pi's coding agent into ~/.cache/bridle-bench/pi when missing
  --cpu-prof DIR    write a V8 CPU profile of every agent process into DIR
  --json            print every session's figures as JSON lines instead of the table
  -h, --help        this help`;

/** Runs the command; returns the exit code (2 on bad usage). */
export async function overheadCommand(argv: readonly string[]): Promise<number> {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(argv).values;
  } catch (error) {
    process.stderr.write(`bridle-eval overhead: ${(error as Error).message}\n${OVERHEAD_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${OVERHEAD_USAGE}\n`);
    return 0;
  }
  const turns = Number(values.turns);
  const rounds = Number(values.rounds);
  if (!(Number.isInteger(turns) && turns > 0 && Number.isInteger(rounds) && rounds > 0)) {
    process.stderr.write(`bridle-eval overhead: --turns and --rounds take positive integers\n`);
    return 2;
  }
  const agents = availableAgents({
    bridle: values.bridle ?? defaultBridleScript(),
    install: !values["no-install"],
    log: (line) => process.stderr.write(`${line}\n`),
  });
  for (const agent of agents) {
    if (!agent.script) process.stderr.write(`${agent.name}: not installed, skipped\n`);
  }
  const tools = (values.tool ?? "shell,read").split(",");
  if (tools.some((tool) => tool !== "shell" && tool !== "read")) {
    process.stderr.write(`bridle-eval overhead: --tool takes shell, read or both\n`);
    return 2;
  }
  const profile = values["cpu-prof"];
  const problems: string[] = [];
  for (const tool of tools as TurnTool[]) {
    const sessions = await runOverhead(agents, {
      toolTurns: turns,
      rounds,
      tool,
      ...(profile ? { nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${profile}`] } : {}),
      onSession: (figures) => {
        if (values.json) process.stdout.write(`${JSON.stringify({ tool, ...figures })}\n`);
        else process.stderr.write(`${tool} ${figures.agent}: ${figures.medianTurnMs.toFixed(2)} ms / turn\n`);
      },
    });
    const rows = summarizeOverhead(sessions);
    if (!values.json) process.stdout.write(`\n${tool} tool turns:\n\n${formatOverhead(rows, turns)}\n`);
    problems.push(
      ...rows.flatMap((row) => row.problems.map((problem) => `${tool} ${row.agent}: ${problem}`)),
    );
  }
  if (!values.json) {
    process.stdout.write(
      `\nbridle-eval overhead --turns ${turns} --rounds ${rounds} --tool ${tools.join(",")}\n`,
    );
  }
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  return problems.length === 0 ? 0 : 1;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      turns: { type: "string", default: "200" },
      rounds: { type: "string", default: "3" },
      tool: { type: "string" },
      bridle: { type: "string" },
      "no-install": { type: "boolean" },
      "cpu-prof": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
}
