// The agent CLIs the overhead suite can drive: how to start each one-shot against an OpenAI-compatible
// base URL, with its sessions recorded, in a home folder of the run's own (so no user config leaks in).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where a run happens: the loopback base URL, the workspace, and a fresh home for the agent. */
export interface AgentRunPlace {
  readonly baseUrl: string;
  readonly workspace: string;
  readonly home: string;
  readonly prompt: string;
  /** Extra node flags (a profile: --cpu-prof --cpu-prof-dir=…). */
  readonly nodeFlags?: readonly string[];
  /** The model's context window in tokens, told to the agent, so a session reaches compaction. */
  readonly contextWindow?: number;
  /** More options for Bridle's command line (`--profile openai`, say); other agents take none. */
  readonly bridleArgs?: readonly string[];
  /** Bridle's interactive session (no `run`, no prompt: it is typed at the terminal) instead of a one-shot. */
  readonly interactive?: boolean;
  /** Bridle's `--sandbox` (default off: pi runs its commands unsandboxed); other agents have none. */
  readonly sandbox?: SandboxChoice;
}

/** Bridle's `--sandbox` values. */
export const SANDBOX_CHOICES = ["auto", "bwrap", "off"] as const;
export type SandboxChoice = (typeof SANDBOX_CHOICES)[number];

/**
 * A command line to spawn: the node binary runs `script`, so the spawned pid is the agent itself; or, for
 * an agent that is a native program (Claude Code's and Codex's npm packages ship one), that program.
 */
export interface AgentLaunch {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The program to start instead of node. */
  readonly executable?: string;
}

export interface AgentSpec {
  /** Short name in tables. */
  readonly name: string;
  /** The entry script, or undefined when the agent is not installed. */
  readonly script: string | undefined;
  readonly version: string | undefined;
  launch(place: AgentRunPlace): AgentLaunch;
  /** The turn kinds it can be measured on (default all): an agent without a file-reading tool has no read turns. */
  readonly turns?: readonly TurnKind[];
}

/** The kinds of session the suite runs (`--tool`). */
export type TurnKind = "shell" | "read" | "compaction";

const MODEL = "bench-model";

/** Bridle's own CLI, built (apps/cli/dist/main.js), started with the node flags its shebang sets. */
export function bridleAgent(script: string): AgentSpec {
  const present = existsSync(script);
  return {
    name: "bridle",
    script: present ? script : undefined,
    version: present ? packageVersion(join(script, "..", "..", "package.json")) : undefined,
    launch: (place) => ({
      args: [
        ...shebangFlags(script),
        ...(place.nodeFlags ?? []),
        script,
        ...(place.interactive ? [] : ["run", place.prompt]),
        "--provider",
        "openai-chat",
        "--model",
        MODEL,
        "--base-url",
        place.baseUrl,
        "--cwd",
        place.workspace,
        "--max-turns",
        "10000",
        "--sandbox",
        place.sandbox ?? "off",
        "--yes",
        ...(place.contextWindow ? ["--context-window", String(place.contextWindow)] : []),
        ...(place.bridleArgs ?? []),
      ],
      env: { HOME: place.home, OPENAI_API_KEY: "sk-bench", XDG_CONFIG_HOME: join(place.home, ".config") },
    }),
  };
}

/**
 * pi's coding agent (@mariozechner/pi-coding-agent), installed under `root` (node_modules inside). Its
 * docs/models.md: a custom provider in `<agent dir>/models.json` with `api: "openai-completions"`; the
 * agent dir comes from PI_CODING_AGENT_DIR; `-p` is its one-shot print mode; sessions are recorded by
 * default (`--session-dir` says where).
 */
export function piAgent(root: string): AgentSpec {
  const dir = join(root, "node_modules", "@mariozechner", "pi-coding-agent");
  const script = join(dir, "dist", "cli.js");
  const present = existsSync(script);
  return {
    name: "pi",
    script: present ? script : undefined,
    version: present ? packageVersion(join(dir, "package.json")) : undefined,
    launch: (place) => {
      const agentDir = join(place.home, ".pi", "agent");
      writeModels(agentDir, place.baseUrl, place.contextWindow);
      return {
        args: [
          ...(place.nodeFlags ?? []),
          script,
          "-p",
          "--provider",
          "bench",
          "--model",
          MODEL,
          "--session-dir",
          join(place.home, "pi-sessions"),
          place.prompt,
        ],
        env: { HOME: place.home, PI_CODING_AGENT_DIR: agentDir, PI_SKIP_VERSION_CHECK: "1" },
      };
    },
  };
}

/**
 * Claude Code (`@anthropic-ai/claude-code`), where its npm package is installed under `root` (the bench
 * never installs it). It speaks Anthropic's Messages API to ANTHROPIC_BASE_URL, which the loopback serves
 * at the same origin; `-p` is its one-shot mode, `--dangerously-skip-permissions` runs its tools without
 * asking (as pi and Bridle's `--yes --sandbox off` do; IS_SANDBOX lets it as root), and nonessential
 * traffic is off, since nothing but the loopback is reachable. It compacts by its own model's window,
 * which cannot be told a small one: no compaction sessions.
 */
export function claudeAgent(root: string): AgentSpec {
  const dir = join(root, "node_modules", "@anthropic-ai", "claude-code");
  const program = join(dir, "bin", "claude.exe");
  const present = existsSync(program);
  return {
    name: "claude-code",
    script: present ? program : undefined,
    version: present ? packageVersion(join(dir, "package.json")) : undefined,
    turns: ["shell", "read"],
    launch: (place) => ({
      executable: program,
      args: ["-p", place.prompt, "--dangerously-skip-permissions", "--model", "claude-sonnet-4-6"],
      env: {
        HOME: place.home,
        ANTHROPIC_BASE_URL: place.baseUrl.replace(/\/v1$/, ""),
        ANTHROPIC_API_KEY: "sk-bench",
        IS_SANDBOX: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
      },
    }),
  };
}

/**
 * OpenAI's Codex CLI (`@openai/codex`), where its npm package is installed under `root` (never by the
 * bench): its native program for this platform, with a custom provider in `$CODEX_HOME/config.toml`
 * speaking the Responses API to the loopback, `exec` as its one-shot mode, and no sandbox or approvals.
 * It has no file-reading tool (it reads with its shell) and is not told a small window: shell turns only.
 */
export function codexAgent(root: string): AgentSpec {
  const dir = join(root, "node_modules", "@openai");
  const program = join(dir, "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex");
  const present = process.platform === "linux" && process.arch === "x64" && existsSync(program);
  return {
    name: "codex",
    script: present ? program : undefined,
    version: present ? packageVersion(join(dir, "codex", "package.json")) : undefined,
    turns: ["shell"],
    launch: (place) => {
      const codexHome = join(place.home, ".codex");
      mkdirSync(codexHome, { recursive: true });
      const provider = [
        `model = "${MODEL}"`,
        `model_provider = "bench"`,
        "[model_providers.bench]",
        `name = "bench"`,
        `base_url = "${place.baseUrl}"`,
        `wire_api = "responses"`,
        `env_key = "OPENAI_API_KEY"`,
      ];
      writeFileSync(join(codexHome, "config.toml"), `${provider.join("\n")}\n`);
      return {
        executable: program,
        args: ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", place.prompt],
        env: { HOME: place.home, CODEX_HOME: codexHome, OPENAI_API_KEY: "sk-bench" },
      };
    },
  };
}

/** Where the bench keeps peer agents it installs: ~/.cache/bridle-bench/<name>. */
export function peerCacheDir(name: string): string {
  return join(homedir(), ".cache", "bridle-bench", name);
}

function writeModels(agentDir: string, baseUrl: string, contextWindow?: number): void {
  const models = {
    providers: {
      bench: {
        baseUrl,
        api: "openai-completions",
        apiKey: "sk-bench",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: MODEL, reasoning: false, contextWindow: contextWindow ?? 1_000_000, maxTokens: 4096 }],
      },
    },
  };
  mkdirSync(agentDir, { recursive: true });
  writeFileSync(join(agentDir, "models.json"), JSON.stringify(models, null, 2));
  if (contextWindow) {
    // Compaction where Bridle's defaults put it: past 80% of the window, keeping the last quarter.
    const compaction = {
      reserveTokens: Math.floor(contextWindow * 0.2),
      keepRecentTokens: Math.floor(contextWindow / 4),
    };
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ compaction }, null, 2));
  }
}

/** The node flags after `node` in a `#!/usr/bin/env -S node …` line, so Bridle runs as users start it. */
export function shebangFlags(script: string): string[] {
  let first = "";
  try {
    first = readFileSync(script, "utf8").split("\n", 1)[0] ?? "";
  } catch {
    // Gone since the agent was found (a rebuild under way): node then says so, and the run is a problem.
  }
  const match = /^#!.*\bnode\b(.*)$/.exec(first);
  return (match?.[1] ?? "").split(/\s+/).filter((flag) => flag.startsWith("--"));
}

function packageVersion(path: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(path, "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}
