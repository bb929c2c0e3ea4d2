// What the recipe is given: settled settings, as plain data. A front door (the CLI's config loader, an ACP
// session, an eval task) turns its own inputs into these; the recipe never reads a config file or a flag.
import type { ModelTable } from "@bridle/provider-kit";
import type { PermissionMode, SandboxMode } from "@bridle/tools-shell";

/** A subagent definition file as read by the front door (`.bridle/agents/*.md`), trusted where it came from. */
export interface AgentFile {
  readonly path: string;
  readonly text: string;
  readonly source: "user" | "workspace";
}

/** The user's own shell rules: argv prefixes as `bridle policy check` shows them ("npm test", "git push"). */
export interface PermissionRules {
  readonly allow: readonly string[];
  readonly ask: readonly string[];
  readonly deny: readonly string[];
}

/** The coding overlay: on by default (baseline, own diff, checks, plan, evidence), off for a bare tool loop. */
export interface CodingChoice {
  readonly enabled: boolean;
  readonly repairAttempts: number;
}

export const DEFAULT_CODING: CodingChoice = { enabled: true, repairAttempts: 2 };

export type StoreKind = "jsonl" | "sqlite" | "postgres";
export type ProfileChoice = "generic" | "openai" | "anthropic";
export type EditFormatChoice = "hashline" | "replace" | "apply_patch";

export interface CodingAgentSettings {
  /** A provider's name, as its descriptor gives it ("openai", "openai-chat", "anthropic"). */
  readonly provider: string;
  readonly model: string;
  readonly baseUrl?: string | undefined;
  /** Rows added to the provider's model table. */
  readonly models?: ModelTable | undefined;
  /** Seconds of silence from the provider's stream before an attempt is abandoned. */
  readonly idleTimeout?: number | undefined;
  /** Absolute workspace root. */
  readonly cwd: string;
  readonly store: StoreKind;
  /** Absolute folder holding a jsonl or sqlite session store. */
  readonly storeDir: string;
  readonly databaseUrl?: string | undefined;
  /** Bounds model requests; tool calls get ten per request unless `maxToolCalls` says otherwise. */
  readonly maxTurns: number;
  readonly maxToolCalls?: number | undefined;
  /** Unset: chosen per provider and model family, with the reason (`describeChoice`). */
  readonly profile?: ProfileChoice | undefined;
  readonly editFormat?: EditFormatChoice | undefined;
  readonly sandbox: SandboxMode;
  readonly permissionMode: PermissionMode;
  readonly permissions?: PermissionRules | undefined;
  /** The MCP config's path or inline JSON, as given (for messages and the sandbox's read-only list). */
  readonly mcp?: string | undefined;
  /** The MCP config's text, read once by the front door. */
  readonly mcpConfig?: string | undefined;
  /** Whether the first model request waits for the MCP servers ("background": it does not). */
  readonly mcpStartup: "background" | "wait";
  /** A skills folder: absolute, as front doors settle it. */
  readonly skills?: string | undefined;
  /** The coding overlay (default on, two repair attempts). */
  readonly coding?: CodingChoice | undefined;
  /** Summarize older turns near the context window, and once after an overflow. */
  readonly compaction: boolean;
  /** The model's context window when the model table does not know it. */
  readonly contextWindow?: number | undefined;
  /** Read AGENTS.md (or CLAUDE.md…) into the system prompt. */
  readonly instructions: boolean;
  readonly subagentDepth: number;
  readonly keepTasks: boolean;
  /** Memory and session tools. */
  readonly memory: boolean;
  /** Hosts the fetch tool may reach; no fetch tool unless set. */
  readonly fetchHosts?: readonly string[] | undefined;
  /** Subagent definitions the front door read (and, for a workspace's, had trusted). */
  readonly agentFiles: readonly AgentFile[];
  /** Hook scripts in Claude Code's settings shape (event → matcher groups → commands), settled as trusted. */
  readonly hooks?: unknown;
  /** Also run the hooks of the user's Claude Code settings files (managed and user scope), unchanged. */
  readonly claudeHooks?: boolean | undefined;
  /**
   * The user's data folder: each workspace's spilled tool output and memory live in a folder under it keyed
   * by the workspace's real path (outside the repository). Default: `$XDG_DATA_HOME` or `~/.local/share`.
   */
  readonly dataDir?: string | undefined;
}
