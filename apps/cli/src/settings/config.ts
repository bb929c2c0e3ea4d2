import { realpath } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { PROVIDER_NAMES, providerNamed, userDataDir } from "@bridle/coding-agent";
import { userConfigFolder } from "@bridle/core";
import { isWithinResolved } from "@bridle/core/node";
import type { ModelTable, ProviderDescriptor } from "@bridle/provider-kit";
import { z } from "zod";
import { CliError } from "../cli-error.js";
import { displayText, visible } from "../terminal/display-text.js";
import { type AgentFile, readAgentFiles } from "../trust/agent-files.js";
import { decideWorkspaceTrust, type TrustIo } from "../trust/trust.js";
import { TrustStore } from "../trust/trust-store.js";
import type { CliFlags } from "./args.js";
import { type FileBytes, readRegularFile } from "./bounded-read.js";
import { flagProblem } from "./flag-problems.js";
import { KIT_SETTING_RISK, kitSettingsShape } from "./kit-settings.js";
import { modelRowsSetting } from "./model-rows.js";
import { loadProviderModules } from "./provider-plugins.js";

const settingsShape = {
  // A built-in provider's name, or one a provider module of the user's config adds (checked once loaded).
  provider: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,39}$/, "must be a provider's name (lowercase letters, digits, dashes)")
    .default(PROVIDER_NAMES[0] as string),
  // Hook scripts as Claude Code's settings write them (event → matcher groups → commands); checked by
  // @bridle/hook-scripts when the agent is built.
  hooks: z.record(z.string(), z.unknown()).optional(),
  // Also run the hooks of the user's own Claude Code settings files, unchanged.
  claudeHooks: z.boolean().default(false),
  // Modules that each export a provider descriptor (`@bridle/provider-kit`'s ProviderDescriptor).
  providers: z.array(z.string().min(1)).max(32).optional(),
  model: z
    .string()
    .min(1)
    .refine((name) => !/\p{Cc}/u.test(name), "must not contain control characters")
    .optional(),
  baseUrl: z.url().optional(),
  cwd: z.string().min(1).optional(),
  session: z.string().min(1).optional(),
  resume: z.string().min(1).optional(),
  store: z.enum(["jsonl", "sqlite", "postgres"]).default("jsonl"),
  databaseUrl: z.string().min(1).optional(),
  storeDir: z.string().min(1).optional(),
  maxTurns: z.coerce.number().int().positive().max(10_000).default(50),
  // Unset: chosen per provider and model family (the recipe's profile choice), with the reason shown by `bridle tools list`.
  profile: z.enum(["generic", "openai", "anthropic"]).optional(),
  editFormat: z.enum(["hashline", "replace", "apply_patch"]).optional(),
  sandbox: z.enum(["auto", "off", "bwrap"]).default("auto"),
  // How far the agent reaches without asking (tools-shell's PermissionMode; permission-tools.ts for the file tools).
  permissionMode: z.enum(["read-only", "workspace", "ask", "full-access"]).default("workspace"),
  // The user's own shell rules: argv prefixes as `bridle policy check` shows them ("npm test", "git push").
  permissions: z
    .object({
      allow: z.array(z.string().trim().min(1)).default([]),
      ask: z.array(z.string().trim().min(1)).default([]),
      deny: z.array(z.string().trim().min(1)).default([]),
    })
    .strict()
    .optional(),
  mcp: z.string().min(1).optional(),
  // Whether the first model request waits for the MCP servers (the recipe's MCP start-up).
  mcpStartup: z.enum(["background", "wait"]).default("background"),
  // Seconds of silence from the provider's stream before an attempt is abandoned (provider-kit's idleTimeoutMs).
  idleTimeout: z.coerce.number().positive().max(86_400).optional(),
  skills: z.string().min(1).optional(),
  yes: z.boolean().default(false),
  json: z.boolean().default(false),
  // Rows for the provider's model table: window, prices, capabilities per model name (model-rows.ts).
  models: modelRowsSetting,
  // The rest of the kit (the recipe's kit.ts): compaction, workspace instructions, subagents, memory, fetch.
  ...kitSettingsShape,
};
const settingsSchema = z.object(settingsShape).strict();

/** "user-only": never taken from a workspace config, trusted or not (the user's config, --config or a flag). */
export type SettingRisk = "harmless" | "sensitive" | "harmless-inside-workspace" | "user-only";

/**
 * What a setting can do when a workspace config (a file in the repository being worked on) sets it.
 * Sensitive settings run commands, approve calls, decide where the API key goes or widen what the agent
 * reaches; from a workspace they wait for the user's trust. A key missing here (a typo, a setting added
 * later, "__proto__") is sensitive; `satisfies` stops a new setting from compiling until it is classified.
 */
export const WORKSPACE_SETTING_RISK = {
  provider: "sensitive", // picks which API key is sent, possibly to a base URL set elsewhere
  providers: "user-only", // code the CLI loads and runs
  hooks: "sensitive", // commands run at every tool call and prompt
  claudeHooks: "user-only", // the user's own files outside the workspace
  model: "harmless",
  baseUrl: "sensitive", // where the API key goes
  cwd: "sensitive", // the folder every tool is confined to
  session: "sensitive", // records into, and replays, a stored session of any project
  resume: "sensitive",
  store: "harmless",
  databaseUrl: "sensitive", // where the sessions (prompts, file contents, outputs) are sent
  storeDir: "harmless-inside-workspace",
  maxTurns: "harmless",
  profile: "harmless",
  editFormat: "harmless",
  sandbox: "sensitive", // whether shell commands are confined
  // A repository must not choose how far the agent working on it reaches, nor write its own allow rules.
  permissionMode: "user-only",
  permissions: "user-only",
  mcp: "sensitive", // starts the commands it names
  mcpStartup: "harmless",
  idleTimeout: "harmless",
  skills: "sensitive", // skills carry scripts the agent runs
  yes: "sensitive", // approves every call
  json: "harmless",
  // Prices and windows the cost line and compaction trust, and whether images are sent: the user's word.
  models: "user-only",
  ...KIT_SETTING_RISK,
} as const satisfies Record<keyof typeof settingsShape, SettingRisk>;

/** Settings naming a file or folder: in a config file they are relative to that file's folder. */
const PATH_SETTINGS = new Set(["cwd", "storeDir", "mcp", "skills"]);

export type Settings = Omit<z.output<typeof settingsSchema>, "model" | "cwd" | "storeDir"> & {
  readonly model: string;
  /** Absolute workspace root. */
  readonly cwd: string;
  /** Absolute folder holding the session store. */
  readonly storeDir: string;
  /** The MCP config's text, read once at start: an edit during the run changes nothing until the next. */
  readonly mcpConfig?: string;
  /** Which config files were read, for `--help`-style diagnostics. */
  readonly configFiles: readonly string[];
  /** Subagent definitions (.bridle/agents/*.md), read once at start (the recipe's subagents.ts). */
  readonly agentFiles: readonly AgentFile[];
  /** Providers the user's config adds (`providers`: modules exporting a descriptor), loaded once. */
  readonly providerPlugins: readonly ProviderDescriptor[];
  /** Model rows added to the provider's table: the user config's `models`, or the demo's recorded script's. */
  readonly models?: ModelTable;
};

const CONFIG_NAMES = ["bridle.config.json", "bridle.config.yaml", "bridle.config.yml"];
const MAX_CONFIG_BYTES = 1024 * 1024;

interface ConfigFile {
  readonly path: string;
  readonly realPath: string;
  readonly bytes: Buffer;
  readonly values: Record<string, unknown>;
}

/** What a command reads beyond the settings themselves. */
export interface SettingsReading {
  /**
   * The workspace's subagent definitions (.bridle/agents), which ask for trust: only a command that runs the
   * agent needs them (default true); sessions, tools, policy and view pass false and never ask.
   */
  readonly workspaceAgents?: boolean;
}

/**
 * Settings from, in rising precedence: the user's config, the workspace's config, the flags. The workspace's
 * sensitive settings (WORKSPACE_SETTING_RISK) apply only when the user trusts that config (see trust.ts).
 * Everything is read here, once: nothing is read again from the workspace during the run.
 */
export async function loadSettings(
  flags: CliFlags,
  env: NodeJS.ProcessEnv = process.env,
  io: TrustIo = terminalIo(),
  reading: SettingsReading = {},
): Promise<Settings> {
  const cwd = resolve(flags.cwd ?? process.cwd());
  const userDir = userConfigDir(env);
  const files: string[] = [];
  const layers: Record<string, unknown>[] = [];
  if (flags.config) {
    // Named on the command line: the user chose it, wherever it is.
    const explicit = await readConfig(resolve(flags.config));
    if (!explicit) throw new CliError(`cannot read config ${resolve(flags.config)}: no such file`, 2);
    layers.push(explicit.values);
    files.push(explicit.path);
  } else {
    const user = await findConfig(userDir);
    if (user) {
      layers.push(user.values);
      files.push(user.path);
    }
    // A workspace that is the user's config folder holds the user's own config, read above.
    const workspace =
      (await realOrSame(cwd)) === (await realOrSame(userDir)) ? undefined : await findConfig(cwd);
    if (workspace) {
      layers.push(await trustedValues(workspace, await realOrSame(cwd), flags.trust === true, userDir, io));
      files.push(workspace.path);
    }
  }
  const {
    config: _config,
    at: _at,
    trust: _trust,
    html: _html,
    port: _port,
    to: _to,
    ...flagSettings
  } = flags;
  // Own properties only, in precedence order: a "__proto__" key stays a key (and is refused as unknown).
  const merged = Object.fromEntries([
    ...layers.flatMap((layer) => Object.entries(layer)),
    ...Object.entries(flagSettings),
  ]);
  const parsed = settingsSchema.safeParse(merged);
  if (!parsed.success) {
    // A typed flag's problem in its own words; a config file's in its keys.
    const typed = parsed.error.issues.map((issue) => flagProblem(issue, flagSettings));
    const problems = parsed.error.issues
      .filter((_, i) => typed[i] === undefined)
      .map((issue) => `${issue.path.join(".") || "config"}: ${issue.message}`);
    throw new CliError(
      [
        ...typed.filter((line) => line !== undefined),
        ...(problems.length > 0
          ? [`invalid settings (${files.join(", ") || "flags"}): ${problems.join("; ")}`]
          : []),
      ].join("; "),
      2,
    );
  }
  const settings = parsed.data;
  const dataHome = userDataDir(env);
  const providerPlugins = await loadProviderModules(settings.providers ?? []);
  return {
    ...settings,
    providerPlugins,
    model: settings.model ?? (await providerNamed(settings.provider, providerPlugins)).defaultModel,
    cwd: settings.cwd ? resolve(settings.cwd) : cwd,
    storeDir: resolve(cwd, settings.storeDir ?? join(dataHome, "bridle")),
    ...(settings.databaseUrl || env.BRIDLE_DATABASE_URL
      ? { databaseUrl: settings.databaseUrl || env.BRIDLE_DATABASE_URL }
      : {}),
    // `--mcp` names a file, or holds the JSON itself.
    ...(settings.mcp
      ? {
          mcpConfig: settings.mcp.trimStart().startsWith("{")
            ? settings.mcp
            : await readMcpConfig(resolve(settings.mcp)),
        }
      : {}),
    configFiles: files,
    agentFiles: await readAgentFiles(
      settings.cwd ? resolve(settings.cwd) : cwd,
      userDir,
      flags.trust === true,
      io,
      reading.workspaceAgents ?? true,
    ),
  };
}

/** The user's config folder: their config, and the trust they have given. */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return userConfigFolder(env);
}

/** The workspace config's values that apply: all of them if trusted, else only the harmless ones. */
async function trustedValues(
  config: ConfigFile,
  workspace: string,
  flag: boolean,
  userDir: string,
  io: TrustIo,
): Promise<Record<string, unknown>> {
  const harmless: Record<string, unknown> = {};
  const sensitive: Record<string, unknown> = {};
  const references: string[] = [];
  for (const [key, value] of Object.entries(config.values)) {
    const risk: SettingRisk = Object.hasOwn(WORKSPACE_SETTING_RISK, key)
      ? WORKSPACE_SETTING_RISK[key as keyof typeof WORKSPACE_SETTING_RISK]
      : "sensitive";
    if (risk === "user-only") {
      io.warn(
        `bridle: warning: ${displayText(config.path)}: ${key} is ignored in a workspace config (only your user config, --config or a flag sets it)`,
      );
      continue;
    }
    const applies =
      risk === "harmless" ||
      (risk === "harmless-inside-workspace" &&
        typeof value === "string" &&
        (await isWithinResolved(workspace, value)));
    Object.defineProperty(applies ? harmless : sensitive, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    // Their content is trusted with the config; by real path, so a workspace reached through a symlink is one.
    if ((key === "mcp" || key === "skills") && typeof value === "string")
      references.push(await realOrSame(value));
  }
  const store = new TrustStore(userDir);
  const verdict = await decideWorkspaceTrust(
    { workspace, file: config.realPath, bytes: config.bytes, sensitive, references },
    { flag, store: (await isWithinResolved(workspace, store.path)) ? undefined : store, io },
  );
  return verdict === "trusted" ? { ...harmless, ...sensitive } : harmless;
}

async function realOrSame(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

function terminalIo(): TrustIo {
  // Warnings quote config values and file names: shown, never obeyed by the terminal.
  const warn = (line: string) => {
    process.stderr.write(`${visible(line)}\n`);
  };
  if (!process.stdin.isTTY || !process.stderr.isTTY) return { warn };
  return {
    warn,
    ask: async (question) => {
      const { askOnTerminal } = await import("../terminal/terminal.js");
      return askOnTerminal(question, new AbortController().signal);
    },
  };
}

async function findConfig(dir: string): Promise<ConfigFile | undefined> {
  for (const name of CONFIG_NAMES) {
    const found = await readConfig(join(dir, name));
    if (found) return found;
  }
  return undefined;
}

async function readMcpConfig(path: string): Promise<string> {
  try {
    return (await readRegularFile(path, MAX_CONFIG_BYTES)).bytes.toString("utf8");
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read the MCP config ${path}: ${(error as Error).message}`, 2);
  }
}

/** A config file's values (keys in camelCase, paths made absolute), or undefined when there is none. */
async function readConfig(path: string): Promise<ConfigFile | undefined> {
  let file: FileBytes;
  try {
    file = await readRegularFile(path, MAX_CONFIG_BYTES);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`cannot read config ${path}: ${(error as Error).message}`, 2);
  }
  const text = file.bytes.toString("utf8");
  let value: unknown;
  try {
    value = path.endsWith(".json") ? JSON.parse(text) : (await import("yaml")).parse(text);
  } catch (error) {
    throw new CliError(
      `config ${path} is not valid ${path.endsWith(".json") ? "JSON" : "YAML"}: ${(error as Error).message}`,
      2,
    );
  }
  if (value === null || value === undefined) value = {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new CliError(`config ${path} must hold an object`, 2);
  const values = Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, v]) => {
      // The file may spell keys as the flags do (base-url) or in camelCase (baseUrl).
      const name = key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      if (name === "providers" && Array.isArray(v))
        return [name, v.map((entry) => (typeof entry === "string" ? resolve(dirname(path), entry) : entry))];
      return [name, PATH_SETTINGS.has(name) && typeof v === "string" ? resolve(dirname(path), v) : v];
    }),
  );
  return { path, realPath: file.realPath, bytes: file.bytes, values };
}
