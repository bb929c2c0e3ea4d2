import { parseArgs } from "node:util";
// The names alone, not the recipe: `--help` and `--version` start without loading its packages.
import { PROVIDER_NAMES } from "@bridle/coding-agent/providers";
import { CliError } from "../cli-error.js";

/** Flags as typed on the command line; the config file uses the same keys in camelCase. */
export interface CliFlags {
  readonly provider?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly cwd?: string;
  readonly session?: string;
  readonly resume?: string;
  /** `--resume` with no id: pick one of this workspace's sessions on the terminal (session-choice.ts). */
  readonly resumePick?: boolean;
  /** -c / --continue: this workspace's latest session. */
  readonly continue?: boolean;
  readonly store?: string;
  /** --store postgres (and durable runs): the server's connection string, else BRIDLE_DATABASE_URL. */
  readonly databaseUrl?: string;
  /** `bridle run`: as a durable run here (--durable), or queued for a worker (--enqueue): durable.ts. */
  readonly durable?: boolean;
  readonly enqueue?: boolean;
  /** `bridle worker`: queued runs at once in this process. */
  readonly concurrency?: string;
  /** `bridle runs reject`: what the model is told. */
  readonly reason?: string;
  readonly maxTurns?: string;
  /** Seconds of silence from the provider before an attempt is abandoned. */
  readonly idleTimeout?: string;
  readonly editFormat?: string;
  readonly profile?: string;
  readonly sandbox?: string;
  /** read-only | workspace | ask | full-access (tools-shell's PermissionMode). */
  readonly permissionMode?: string;
  readonly mcp?: string;
  /** background | wait: whether the first model request waits for the MCP servers. */
  readonly mcpStartup?: string;
  readonly skills?: string;
  readonly config?: string;
  readonly yes?: boolean;
  /** Start in plan mode: only reads until the person accepts the agent's plan (coding-agent's ModeSwitch). */
  readonly plan?: boolean;
  /** Apply the workspace config's sensitive settings this run, without asking (see trust.ts). */
  readonly trust?: boolean;
  readonly json?: boolean;
  readonly at?: string;
  /** `bridle sessions rewind ID --to TURN`. */
  readonly to?: string;
  /** `bridle sessions export ID --html FILE`. */
  readonly html?: string;
  /** `bridle view --port N`. */
  readonly port?: string;
  /** `bridle demo`: leave the example repository and its session in place. */
  readonly keep?: boolean;
  /** A bare tool loop: no coding overlay (see coding.ts). */
  readonly noCoding?: boolean;
  /** Write the run's evidence handoff here as JSON. */
  readonly evidence?: string;
  /** Failed checks the agent may repair and run again before the run stops (default 2). */
  readonly repairAttempts?: string;
  /** `--image FILE`, repeatable: images sent with the first prompt (run/images.ts). */
  readonly image?: readonly string[];
  /** Append the run's OpenTelemetry spans to this JSONL file (see tracing.ts). */
  readonly trace?: string;
  /** Export the run's spans over OTLP/HTTP to this collector. */
  readonly otlp?: string;
  /** --no-instructions / --no-compaction: false; unset otherwise (the recipe's kit.ts). */
  readonly instructions?: boolean;
  readonly compaction?: boolean;
  readonly contextWindow?: string;
  readonly keepTasks?: boolean;
  /** Run the hooks of the user's Claude Code settings files too. */
  readonly claudeHooks?: boolean;
}

export type CommandName =
  | "run"
  | "interactive"
  | "sessions"
  | "tools"
  | "policy"
  | "skills"
  | "demo"
  | "view"
  | "worker"
  | "runs"
  | "acp";

export type ParsedCommandLine =
  | { readonly kind: "version" }
  | { readonly kind: "help"; readonly text: string }
  | {
      readonly kind: "command";
      readonly command: CommandName;
      readonly positionals: readonly string[];
      readonly flags: CliFlags;
    };

const OPTIONS = {
  provider: { type: "string" },
  model: { type: "string" },
  "base-url": { type: "string" },
  cwd: { type: "string" },
  session: { type: "string" },
  resume: { type: "string" },
  continue: { type: "boolean", short: "c" },
  store: { type: "string" },
  "database-url": { type: "string" },
  durable: { type: "boolean" },
  enqueue: { type: "boolean" },
  concurrency: { type: "string" },
  reason: { type: "string" },
  "max-turns": { type: "string" },
  "edit-format": { type: "string" },
  profile: { type: "string" },
  sandbox: { type: "string" },
  "permission-mode": { type: "string" },
  "mcp-startup": { type: "string" },
  "idle-timeout": { type: "string" },
  mcp: { type: "string" },
  skills: { type: "string" },
  config: { type: "string" },
  yes: { type: "boolean", short: "y" },
  plan: { type: "boolean" },
  trust: { type: "boolean" },
  json: { type: "boolean" },
  at: { type: "string" },
  to: { type: "string" },
  html: { type: "string" },
  port: { type: "string" },
  keep: { type: "boolean" },
  "no-coding": { type: "boolean" },
  evidence: { type: "string" },
  "repair-attempts": { type: "string" },
  "no-instructions": { type: "boolean" },
  "no-compaction": { type: "boolean" },
  "context-window": { type: "string" },
  "keep-tasks": { type: "boolean" },
  "claude-hooks": { type: "boolean" },
  image: { type: "string", multiple: true },
  trace: { type: "string" },
  otlp: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

const RUN_OPTIONS = `Options:
  --provider NAME                           model API: ${PROVIDER_NAMES.join(", ")}, or one that a module
                                            in your config's "providers" adds (default: from config, else
                                            ${PROVIDER_NAMES[0]}; anthropic when ANTHROPIC_API_KEY is the only key set)
  --model NAME                              model name
  --base-url URL                            API base URL (OpenAI-compatible servers, proxies)
  --cwd DIR                                 workspace root (default: current directory)
  --session ID                              record into this session (created if missing)
  --resume [ID]                             continue a stored session (no ID: pick one of this
                                            workspace's, on a terminal)
  -c, --continue                            continue this workspace's latest session
  --store jsonl|sqlite|postgres             session store (default: jsonl)
  --database-url URL                        Postgres for --store postgres (default: BRIDLE_DATABASE_URL)
  --durable                                 run as a durable run (Postgres): if this process stops, a worker finishes it
  --enqueue                                 queue the run for a bridle worker and print its id
  --max-turns N                             model requests per run (default: 50)
  --profile generic|openai|anthropic        tool names the model sees (default: from provider and model family)
  --edit-format replace|hashline|apply_patch   edit tool (default per model family: apply_patch for OpenAI
                                            models, replace for Claude, hashline otherwise)
  --sandbox auto|bwrap|off                  shell commands in bubblewrap (default auto: wherever it runs)
  --permission-mode MODE                    how far the agent reaches unasked (default: workspace):
                                              read-only   no file writes; only commands proven read-only
                                              workspace   commands run in the sandbox unasked; without a
                                                          sandbox, what is not proven read-only asks
                                              ask         every write and every command not proven
                                                          read-only asks
                                              full-access no sandbox and no approvals
  --plan                                    start in plan mode: only reads until you accept the agent's plan
                                            (interactive: Shift-Tab cycles plan and the permission modes;
                                            bridle acp: every new session; not with --durable/--enqueue)
  --mcp FILE                                MCP servers ({"mcpServers": {...}})
  --idle-timeout SECONDS                    longest silence from the provider before an attempt is abandoned
                                            and retried (default 120)
  --mcp-startup background|wait            background (default): the first request leaves at once and a
                                            server's tools join once it is ready; wait: every server is
                                            ready before the first request (scripts whose first turn needs them)
  --skills DIR                              folder of SKILL.md skills
  --config FILE                             config file (default: bridle.config.json|yaml here or in ~/.config/bridle)
  -y, --yes                                 answer yes to every approval the mode asks for (runs outside
                                            the sandbox included); it never widens the mode
  --trust                                   apply the workspace config's sensitive settings this run, unasked
  --json                                    write the run's events as JSON lines on stdout
  --no-coding                               a bare tool loop: no baseline, checks, plan or handoff
  --evidence FILE                           write the run's evidence handoff as JSON (bridle run)
  --repair-attempts N                       failed checks the agent may fix and rerun before stopping (default: 2)
  --image FILE                              send this image (PNG, JPEG, GIF, WebP; up to 5 MiB) with the first
                                            prompt, for models that take images; repeatable
  --trace FILE                              append the run's OpenTelemetry spans to FILE (JSON lines)
  --otlp URL                                export the run's spans over OTLP/HTTP (http://host:4318 or a /v1/traces URL)
  --no-instructions                         leave out AGENTS.md / CLAUDE.md / .github/copilot-instructions.md
  --no-compaction                           never summarize older turns (default: near the context window)
  --context-window N                        the model's context window in tokens (default: known per model)
  --keep-tasks                              leave background subagent tasks running when a run ends
  --claude-hooks                            also run the hooks of your Claude Code settings (~/.claude/settings.json)
  -h, --help                                this help
API keys come from OPENAI_API_KEY / ANTHROPIC_API_KEY; base URLs also from OPENAI_BASE_URL / ANTHROPIC_BASE_URL.
`;

const HELP: Record<Exclude<CommandName, "interactive"> | "main", string> = {
  main: `bridle: a coding agent built from Bridle's packages

Usage:
  bridle                          interactive session (on a terminal)
  bridle run "<prompt>"           one run: the answer on stdout, tool activity on stderr
  bridle demo [--keep]            the agent fixes a bug in an example repository: the model's turns are
                                  recorded (no API key), the tools, edits and test run are real
  bridle sessions list|show ID|fork ID [--at SEQ]|rewind ID [--to TURN]
  bridle worker [--concurrency N]  run queued durable runs (Postgres: --database-url or BRIDLE_DATABASE_URL)
  bridle runs list|show ID|wait ID|approve ID CALL|reject ID CALL   durable runs and their queue
  bridle sessions export ID --html FILE   the session as one self-contained web page
  bridle view [--port N]          browse the sessions in a local web viewer (127.0.0.1, token in the URL)
  bridle acp                      an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains…)
  bridle tools list [--json]      the tools exactly as the model sees them
  bridle policy check "<command>" [--json]   exit 0 allow, 1 ask, 2 deny
  bridle skills validate DIR...   check skill folders against the Agent Skills spec
  bridle --version

The interactive session takes \`bridle run\`'s options. Slash commands: /model NAME, /mode NAME, /sessions,
/fork [SEQ], /compact [TEXT], /cost, /init [TEXT], /undo, /rewind [N], /prompts, /exit, /help; your own from
~/.config/bridle/commands/*.md and .bridle/commands/*.md. @path in a prompt attaches that file. Ctrl-C aborts
the current turn; at the prompt it asks, and a second Ctrl-C (or /exit, or Ctrl-D) leaves.

Run \`bridle <command> --help\` for a command's options.
`,
  run: `Usage: bridle run "<prompt>" [options]\n\nRuns the agent once. Exit code 0 when the run completes, 1 when it ends otherwise, 2 on bad usage.\n\n${RUN_OPTIONS}`,
  sessions: `Usage:
  bridle sessions list [--store jsonl|sqlite|postgres] [--json]
  bridle sessions show ID [--json]
  bridle sessions fork ID [--at SEQ] [--json]
  bridle sessions rewind ID [--to TURN] [--cwd DIR]   list its turns, or put the files back as they were
                                    when turn TURN began and print the fork that continues from there
  bridle sessions export ID --html FILE
`,
  view: `Usage: bridle view [--port N] [--store jsonl|sqlite|postgres]\n\nServes a read-only session viewer on 127.0.0.1 (default: a free port) and prints its URL, which carries\na token made at this start: requests without it, from other origins or for other host names are refused.\nLists the configured store's sessions (and the other local store's, when it has any), opens any of them,\nand follows a running session live. Ctrl-C stops it.\n`,
  skills: `Usage: bridle skills validate DIR...\n\nChecks each skill folder (or its SKILL.md) against the Agent Skills specification, as its reference\nvalidator skills-ref reads it. One line per problem; exit code 0 when every skill is valid (warnings\nallowed), 1 when one is not, 2 on bad usage.\n`,
  tools: `Usage: bridle tools list [--json] [--profile generic|openai|anthropic] [--edit-format replace|hashline|apply_patch] [--provider P] [--model M] [--mcp FILE] [--skills DIR]\n\nPrints the profile and edit format chosen (and why), then the tools with the JSON Schema the model is shown;\n--json prints only the tools, as JSON.\n`,
  policy: `Usage: bridle policy check "<command>" [--json] [--cwd DIR]\n\nJudges a shell command with the bash tool's policy: allow, ask or deny, with the sub-commands and reasons.\nExit code: 0 allow, 1 ask, 2 deny (with --json too), so scripts can branch on it; bad usage is 2 as\nwell, so 2 always means: do not run it.\n`,
  worker: `Usage: bridle worker [--concurrency N] [--database-url URL] [--trace FILE] [--otlp URL] [run options]\n\nPulls queued durable runs from Postgres and runs them, N at a time (default 4; the queue keeps one\nper-worker limit: the last worker started sets it). A run's own recorded options (provider, model,\nworkspace, edit format, sandbox, --yes…) win; this worker's fill in what a run lacks. API keys come from\nthis worker's environment. On start, and every few seconds, it recovers unfinished runs of processes that\nare gone. A durable run is the agent bridle run builds, coding overlay included. SIGINT/SIGTERM stops it;\nits runs are finished by another worker. --trace FILE and --otlp URL trace the runs this worker\nexecutes (a run another process finishes is traced there).\n`,
  runs: `Usage:\n  bridle runs list [--json]\n  bridle runs show ID [--json]      status, options, what it waits on, its answer\n  bridle runs wait ID [--json]      until it ends; exit 0 when it completed\n  bridle runs approve ID CALL       let a call it waits on run (from any machine)\n  bridle runs reject ID CALL [--reason TEXT]\nPostgres from --database-url or BRIDLE_DATABASE_URL.\n`,
  acp: `Usage: bridle acp [options]\n\nAn Agent Client Protocol (ACP) agent on stdin/stdout: an editor starts it and drives sessions.\nEach session works in the folder the editor names, with the editor's MCP servers beside the configured\nones; the editor's mode picker switches the permission mode (from the next turn) and approvals are asked\nin the editor. Files are read and written, and commands run, here in Bridle's sandbox, not through the\neditor. Messages for a person go to stderr. Sessions are stored as bridle run's are (session/load). The\noptions are bridle run's, less --session, --resume, --json and those only bridle run takes.\n\n${RUN_OPTIONS}`,
  demo: `Usage: bridle demo [--keep] [--json]\n\nCopies an example repository to a temporary folder and runs the agent on it with no API key: the\nmodel's turns are a recorded script, served by a loopback server in the OpenAI Responses wire format;\nthe provider adapter, the tools, the file edits, the test run and the session store are real.\n  --keep    leave the repository and the session in place, and print how to look at them\n  --json    write the run's events as JSON lines on stdout\n`,
};

const COMMANDS = new Set<string>([
  "run",
  "worker",
  "runs",
  "sessions",
  "tools",
  "policy",
  "skills",
  "demo",
  "view",
  "acp",
]);

export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: bareResume(argv), options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${shortParseError(error as Error & { code?: string })} (see bridle --help)`, 2);
  }
  const { values, positionals } = parsed;
  const first = positionals[0];
  const command: CommandName =
    first === undefined ? "interactive" : COMMANDS.has(first) ? (first as CommandName) : "run";
  if (first !== undefined && command === "run" && first !== "run") {
    throw new CliError(`unknown command "${first}" (did you mean: bridle run "${first}"?)`, 2);
  }
  if (values.version && first === undefined) return { kind: "version" };
  // Bare `bridle --help` is the main help, which says what the interactive session takes.
  if (values.help) return { kind: "help", text: HELP[command === "interactive" ? "main" : command] };
  if (values.keep && command !== "demo") throw new CliError("--keep is an option of bridle demo", 2);
  for (const [flag, owner] of [
    ["durable", "run"],
    ["enqueue", "run"],
    ["concurrency", "worker"],
    ["reason", "runs"],
  ] as const) {
    if (values[flag] !== undefined && command !== owner) {
      throw new CliError(`--${flag} is an option of bridle ${owner}`, 2);
    }
  }
  for (const traced of ["trace", "otlp"] as const) {
    if (
      values[traced] !== undefined &&
      command !== "run" &&
      command !== "interactive" &&
      command !== "worker"
    ) {
      throw new CliError(
        `--${traced} is an option of bridle run, bridle worker and the interactive session`,
        2,
      );
    }
  }
  for (const coding of ["no-coding", "evidence", "repair-attempts", "continue", "image"] as const) {
    if (values[coding] !== undefined && command !== "run" && command !== "interactive") {
      throw new CliError(`--${coding} is an option of bridle run and the interactive session`, 2);
    }
  }
  if (values.plan !== undefined && (values.durable || values.enqueue)) {
    throw new CliError(
      "--plan does not go with a durable run: it has nobody to accept the plan (a worker waits for approvals, not for a plan's acceptance); plan with bridle run --plan or in bridle, then run the accepted plan durably",
      2,
    );
  }
  if (values.plan !== undefined && command !== "run" && command !== "interactive" && command !== "acp") {
    throw new CliError("--plan is an option of bridle run, the interactive session and bridle acp", 2);
  }
  if ((values.continue || values.resume === "") && (values.durable || values.enqueue)) {
    throw new CliError(
      "a durable run names its session: give --resume ID, not --continue or a bare --resume",
      2,
    );
  }
  if (values.resume === "" && command !== "run" && command !== "interactive") {
    throw new CliError("--resume without an id is an option of bridle run and the interactive session", 2);
  }
  const flags: CliFlags = compact({
    provider: values.provider,
    model: values.model,
    baseUrl: values["base-url"],
    cwd: values.cwd,
    session: values.session,
    resume: values.resume || undefined,
    resumePick: values.resume === "" ? true : undefined,
    continue: values.continue,
    store: values.store,
    databaseUrl: values["database-url"],
    durable: values.durable,
    enqueue: values.enqueue,
    concurrency: values.concurrency,
    reason: values.reason,
    maxTurns: values["max-turns"],
    editFormat: values["edit-format"],
    profile: values.profile,
    sandbox: values.sandbox,
    permissionMode: values["permission-mode"],
    mcp: values.mcp,
    mcpStartup: values["mcp-startup"],
    idleTimeout: values["idle-timeout"],
    skills: values.skills,
    config: values.config,
    yes: values.yes,
    plan: values.plan,
    trust: values.trust,
    json: values.json,
    at: values.at,
    to: values.to,
    html: values.html,
    port: values.port,
    keep: values.keep,
    noCoding: values["no-coding"],
    evidence: values.evidence,
    repairAttempts: values["repair-attempts"],
    instructions: values["no-instructions"] ? false : undefined,
    compaction: values["no-compaction"] ? false : undefined,
    contextWindow: values["context-window"],
    keepTasks: values["keep-tasks"],
    claudeHooks: values["claude-hooks"],
    image: values.image,
    trace: values.trace,
    otlp: values.otlp,
  });
  return { kind: "command", command, positionals: first === undefined ? [] : positionals.slice(1), flags };
}

// `--resume` with no id (last, or before another option) asks for the picker: an empty value says so.
function bareResume(argv: readonly string[]): string[] {
  return argv.map((arg, i) =>
    arg === "--resume" && (i === argv.length - 1 || argv[i + 1]?.startsWith("-")) ? "--resume=" : arg,
  );
}

// node:util's messages run to two sentences of advice; one short line names the option.
function shortParseError(error: Error & { code?: string }): string {
  const option = /'([^']+)'/.exec(error.message)?.[1]?.replace(/ <value>$/, "");
  if (option && error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return `unknown option ${option}`;
  if (option && /argument missing/.test(error.message)) return `${option} needs a value`;
  if (option && /does not take an argument/.test(error.message)) return `${option} takes no value`;
  return error.message.split("\n")[0] ?? "bad arguments";
}

function compact<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
