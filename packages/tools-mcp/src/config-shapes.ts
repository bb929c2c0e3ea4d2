// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Codex's variable names become ${VAR} references, filled in later
import type { ToolFilter } from "./tool-filter.js";

// Every config shape this package reads, as the `mcpServers` entry it means, so one path validates and
// starts them all. Each shape's own keys are translated here and nowhere else.

/** Where a shape keeps its servers: the key, and how one entry is translated. */
export interface ConfigShape {
  /** The top-level key holding the servers. */
  readonly key: "mcpServers" | "servers" | "mcp_servers" | "mcp";
  /** Keys of a server entry this shape gives meaning to. */
  readonly usedKeys: ReadonlySet<string>;
  /** Top-level keys besides `key` that are read (VS Code's `inputs`, opencode's `tools`). */
  readonly otherKeys: ReadonlySet<string>;
  /** The entry as an `mcpServers` entry: whether it is enabled, and its tool filter apart. */
  translate(entry: Record<string, unknown>): Record<string, unknown>;
}

const COMMON = ["type", "command", "args", "env", "cwd", "url", "headers", "disabled", "timeout"];

/** Claude Desktop, Claude Code's .mcp.json, Cursor, Gemini CLI (`httpUrl`, `includeTools`…). */
const MCP_SERVERS: ConfigShape = {
  key: "mcpServers",
  usedKeys: new Set([
    ...COMMON,
    "envFile",
    "httpUrl",
    "includeTools",
    "excludeTools",
    "enabled_tools",
    "disabled_tools",
  ]),
  otherKeys: new Set(),
  translate: (entry) =>
    withFilter(entry, entry.includeTools ?? entry.enabled_tools, entry.excludeTools ?? entry.disabled_tools),
};

/** VS Code's mcp.json. */
const VS_CODE: ConfigShape = {
  ...MCP_SERVERS,
  key: "servers",
  otherKeys: new Set(["inputs"]),
};

/** Codex's `[mcp_servers.<name>]` tables (config.toml, parsed). */
const CODEX: ConfigShape = {
  key: "mcp_servers",
  usedKeys: new Set([
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "http_headers",
    "env_http_headers",
    "bearer_token_env_var",
    "enabled",
    "enabled_tools",
    "disabled_tools",
    "tool_timeout_sec",
  ]),
  otherKeys: new Set(),
  translate(entry) {
    const {
      http_headers,
      env_http_headers,
      bearer_token_env_var,
      enabled,
      enabled_tools,
      disabled_tools,
      tool_timeout_sec,
      ...rest
    } = entry;
    const headers: Record<string, unknown> = { ...asRecord(http_headers) };
    // Codex names the variables; they are read like any other `${VAR}` reference, so an unset one is an error.
    for (const [header, variable] of Object.entries(asRecord(env_http_headers))) {
      if (typeof variable === "string") headers[header] = `\${${variable}}`;
    }
    if (typeof bearer_token_env_var === "string")
      headers.Authorization = `Bearer \${${bearer_token_env_var}}`;
    const translated: Record<string, unknown> = { ...rest };
    if (Object.keys(headers).length > 0) translated.headers = headers;
    if (enabled === false) translated.disabled = true;
    if (typeof tool_timeout_sec === "number") translated.timeout = Math.round(tool_timeout_sec * 1000);
    return withFilter(translated, enabled_tools, disabled_tools);
  },
};

/** opencode's `mcp` section: `local` servers with a command array, `remote` ones with a URL. */
const OPENCODE: ConfigShape = {
  key: "mcp",
  usedKeys: new Set(["type", "command", "environment", "url", "headers", "enabled"]),
  otherKeys: new Set(["tools", "$schema"]),
  translate(entry) {
    const { type, command, environment, enabled, ...rest } = entry;
    const translated: Record<string, unknown> = { ...rest };
    if (type === "local" && Array.isArray(command)) {
      translated.command = command[0];
      translated.args = command.slice(1);
      if (environment !== undefined) translated.env = environment;
    } else if (type === "remote") {
      translated.type = "http";
    } else {
      // Not a shape opencode writes: left for the schema to name what is wrong.
      if (type !== undefined) translated.type = type;
      if (command !== undefined) translated.command = command;
    }
    if (enabled === false) translated.disabled = true;
    return translated;
  },
};

export const CONFIG_SHAPES: readonly ConfigShape[] = [MCP_SERVERS, VS_CODE, CODEX, OPENCODE];

/**
 * opencode's top-level `tools` (glob → enabled) as the globs of every server's filter; keys that are not
 * booleans are opencode's own business.
 */
export function opencodeGlobs(tools: unknown): [string, boolean][] {
  return Object.entries(asRecord(tools)).flatMap(([glob, enabled]) =>
    typeof enabled === "boolean" ? [[glob, enabled] as [string, boolean]] : [],
  );
}

function withFilter(
  entry: Record<string, unknown>,
  include: unknown,
  exclude: unknown,
): Record<string, unknown> {
  const { includeTools, excludeTools, enabled_tools, disabled_tools, ...rest } = entry;
  const filter: { -readonly [K in keyof ToolFilter]: ToolFilter[K] | unknown } = {};
  if (include !== undefined) filter.include = include;
  if (exclude !== undefined) filter.exclude = exclude;
  return Object.keys(filter).length > 0 ? { ...rest, toolFilter: filter } : rest;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
