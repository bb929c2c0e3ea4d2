// `bridle-eval overhead`: the harness's own time per tool turn, its growth over a long session, peak
// memory, first-request bytes and cold start, for Bridle and the peer agents installed beside it.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { bridleAgent, SANDBOX_CHOICES, type SandboxChoice, type TurnKind } from "./agents.js";
import type { TurnTool } from "./loopback.js";
import { firstRequestSize, formatRequestSizes, PROFILES } from "./request-size.js";
import { formatStarts, measureStarts } from "./start.js";
import {
  availableAgents,
  defaultBridleScript,
  formatOverhead,
  runOverhead,
  summarizeOverhead,
} from "./suite.js";

export const OVERHEAD_USAGE = `Usage: bridle-eval overhead [options]

Runs one-shot sessions of each agent CLI against a loopback model server (OpenAI Chat Completions and
Responses, Anthropic Messages) that scripts one tool call per turn, and measures, at the server, the time from the end of each response to the next
request (the harness's own time: parsing, the tool, the session write, the next request's encoding).
Shell turns run \`echo\` (so they include starting a process the way each agent isolates it); read turns
read a small file (the harness's own work alone). Compaction sessions are shell turns that print 600
lines each, with the agent told a small context window, so it compacts during the session.

Every table also says how much of each request the next one repeats byte for byte (tools, system,
messages as sent: what a prompt cache can serve), before any compaction and from the first one on.

The agents: Bridle, pi (installed into ~/.cache/bridle-bench/pi unless --no-install), and Claude Code
and Codex where their npm packages are installed in ~/.cache/bridle-bench/claude and .../codex (this
command never installs them). Codex has shell turns only; neither has compaction sessions.

Options:
  --turns N         tool turns per session (default 200)
  --rounds N        sessions per agent, interleaved (default 3)
  --tool LIST       shell,read,compaction: one table each (default all three)
  --context-window N  the window compaction sessions are told, in tokens (default 16000)
  --bridle PATH     Bridle's built CLI (default: apps/cli/dist/main.js of this checkout)
  --no-install      do not install pi's coding agent into ~/.cache/bridle-bench/pi when missing
  --cpu-prof DIR    write a V8 CPU profile of every agent process into DIR
  --json            print every session's figures as JSON lines instead of the table
  --request-sizes   print only Bridle's first request, per profile and tool, in bytes, as
                    \`bridle run\` and as the interactive session (which offers the plan tool) send it
  --start N         measure only start-up: N starts of each agent (11 is the usual), spawn to the
                    first request, in one workspace and home (caches warm after the first), the agents
                    interleaved, with \`node -e 0\` timed in the same run
  --sandbox MODE    with --start: Bridle's --sandbox, auto, bwrap or off (default off, as pi runs
                    commands unsandboxed); auto and bwrap include the sandbox's probe in the start
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
  const sandbox = values.sandbox ?? "off";
  if (!isSandboxChoice(sandbox)) {
    process.stderr.write(`bridle-eval overhead: --sandbox takes ${SANDBOX_CHOICES.join(", ")}\n`);
    return 2;
  }
  // The request sizes and the turn tables are measured as pi runs commands: without a sandbox.
  if (values.sandbox !== undefined && values.start === undefined) {
    process.stderr.write(`bridle-eval overhead: --sandbox goes with --start\n`);
    return 2;
  }
  if (values["request-sizes"]) {
    const bridle = bridleAgent(values.bridle ?? defaultBridleScript());
    const sizes = [];
    for (const profile of PROFILES) sizes.push(await firstRequestSize(bridle, profile));
    // The interactive session can switch to plan mode, so it offers the plan tool as well.
    for (const profile of PROFILES)
      sizes.push(await firstRequestSize(bridle, profile, { interactive: true }));
    process.stdout.write(`${formatRequestSizes(sizes)}\n`);
    for (const problem of sizes.flatMap((size) => size.problems)) process.stderr.write(`${problem}\n`);
    return sizes.some((size) => size.problems.length > 0) ? 1 : 0;
  }
  if (values.start !== undefined)
    return startCommand(values.start, values.bridle, !values["no-install"], values["cpu-prof"], sandbox);
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
    if (!agent.script)
      process.stderr.write(`${agent.name}: not installed in ~/.cache/bridle-bench, skipped\n`);
  }
  const tools = (values.tool ?? "shell,read,compaction").split(",");
  if (tools.some((tool) => !SESSION_KINDS.includes(tool))) {
    process.stderr.write(`bridle-eval overhead: --tool takes shell, read, compaction or a list of them\n`);
    return 2;
  }
  const contextWindow = Number(values["context-window"]);
  if (!(Number.isInteger(contextWindow) && contextWindow >= 1_000)) {
    process.stderr.write(`bridle-eval overhead: --context-window takes an integer of at least 1000\n`);
    return 2;
  }
  const profile = values["cpu-prof"];
  const problems: string[] = [];
  for (const tool of tools) {
    // Each agent on the turns it has the tools for (Codex reads with its shell: no read turns).
    const able = agents.filter((agent) => agent.turns?.includes(tool as TurnKind) ?? true);
    const sessions = await runOverhead(able, {
      toolTurns: turns,
      rounds,
      ...sessionKind(tool, contextWindow),
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

async function startCommand(
  spawns: string,
  bridle: string | undefined,
  install: boolean,
  profile: string | undefined,
  sandbox: SandboxChoice,
): Promise<number> {
  const count = Number(spawns);
  if (!(Number.isInteger(count) && count > 0)) {
    process.stderr.write(`bridle-eval overhead: --start takes a positive integer\n`);
    return 2;
  }
  const agents = availableAgents({
    bridle: bridle ?? defaultBridleScript(),
    install,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  for (const agent of agents) {
    if (!agent.script)
      process.stderr.write(`${agent.name}: not installed in ~/.cache/bridle-bench, skipped\n`);
  }
  const result = await measureStarts(agents, {
    spawns: count,
    sandbox,
    ...(profile ? { nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${profile}`] } : {}),
  });
  // Wall times move with the machine's load: the table is read with the load it was measured under.
  const load = loadavg()
    .map((average) => average.toFixed(1))
    .join(", ");
  process.stdout.write(
    `\n${formatStarts(result, count)}\n\nbridle-eval overhead --start ${count} --sandbox ${sandbox} (load average ${load} over 1, 5 and 15 minutes as it ended)\n`,
  );
  const problems = result.rows.flatMap((row) => row.problems);
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  return problems.length === 0 ? 0 : 1;
}

function isSandboxChoice(value: string): value is SandboxChoice {
  return (SANDBOX_CHOICES as readonly string[]).includes(value);
}

const SESSION_KINDS: readonly string[] = ["shell", "read", "compaction"];

/** What a kind of session calls, and for compaction sessions the output and window that make it compact. */
function sessionKind(
  kind: string,
  contextWindow: number,
): { tool: TurnTool; command?: string; contextWindow?: number } {
  if (kind === "compaction") return { tool: "shell", command: "seq 1 600", contextWindow };
  return { tool: kind as TurnTool };
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
      "context-window": { type: "string", default: "16000" },
      json: { type: "boolean" },
      "request-sizes": { type: "boolean" },
      start: { type: "string" },
      sandbox: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
}
