import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { BridleError } from "@bridle/core";
import { z } from "zod";
import { CONFIG_SHAPES, opencodeGlobs } from "./config-shapes.js";
import { type EnvironmentValues, expandEnvironment } from "./env-expansion.js";
import { toolFilterSchema } from "./tool-filter.js";

// The configs users already have, read unchanged: `mcpServers` (Claude Desktop, Claude Code's .mcp.json,
// Cursor, Gemini CLI with its `httpUrl` and tool filters), VS Code's `servers`, Codex's `mcp_servers` and
// opencode's `mcp` (config-shapes.ts translates each). Keys this package does not use (autoApprove,
// alwaysAllow, trust, …) are tolerated, and reported, so nothing is dropped silently.

const stdioServerSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1, "command must not be empty"),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  disabled: z.boolean().optional(),
  /** Milliseconds a call may go without a response or progress notification. */
  timeout: z.number().int().positive().optional(),
  /** Which of the server's tools are offered (from includeTools/excludeTools and their equivalents). */
  toolFilter: toolFilterSchema.optional(),
});

const httpServerSchema = z.looseObject({
  /** "http" (Streamable HTTP, falling back to SSE) or "sse" (the older transport only). */
  type: z.enum(["http", "streamable-http", "streamableHttp", "sse"]).optional(),
  url: z.url({ protocol: /^https?$/, error: "url must be an http(s) URL" }),
  headers: z.record(z.string(), z.string()).default({}),
  disabled: z.boolean().optional(),
  timeout: z.number().int().positive().optional(),
  toolFilter: toolFilterSchema.optional(),
});

const serverSchema = z.union([stdioServerSchema, httpServerSchema], {
  error: "a server needs either `command` (stdio) or `url` (Streamable HTTP or SSE)",
});

export const mcpConfigSchema = z.object({
  mcpServers: z.record(z.string().min(1, "a server name must not be empty"), serverSchema),
});

export type StdioServerConfig = z.output<typeof stdioServerSchema>;
export type HttpServerConfig = z.output<typeof httpServerSchema>;
export type McpServerConfig = StdioServerConfig | HttpServerConfig;
/**
 * What callers write: the `mcpServers` JSON other agents use, VS Code's `servers`, Codex's `mcp_servers`
 * (its config.toml, parsed) or opencode's `mcp` (with its top-level `tools` globs).
 */
export type McpConfigInput =
  | z.input<typeof mcpConfigSchema>
  | { readonly servers: Readonly<Record<string, McpServerConfigInput>> }
  | { readonly mcp_servers: Readonly<Record<string, Readonly<Record<string, unknown>>>> }
  | {
      readonly mcp: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
      readonly tools?: Readonly<Record<string, boolean>>;
    };
export type McpServerConfigInput = z.input<typeof serverSchema>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Any supported shape as `{ mcpServers }`, each enabled server's references filled in, its `envFile` read,
 * Gemini's `httpUrl` taken as a Streamable HTTP `url`, and every key left unused reported.
 */
function normalizeShape(value: unknown, options: ParseOptions): unknown {
  if (!isRecord(value)) return value;
  const shape = CONFIG_SHAPES.find((candidate) => isRecord(value[candidate.key]));
  if (!shape) return value;
  const key = shape.key;
  const ignored = options.onIgnored ?? (() => {});
  for (const other of Object.keys(value)) {
    // VS Code's `inputs` only serve `${input:…}` references, reported where they are used.
    if (other !== key && !shape.otherKeys.has(other)) {
      ignored("(config)", `the top-level key "${other}" is not used`);
    }
  }
  const globs = key === "mcp" ? opencodeGlobs(value.tools) : [];
  const workspaceFolder = resolve(options.workspaceFolder ?? process.cwd());
  const userHome = options.userHome ?? homedir();
  const env: EnvironmentValues = {
    ...(options.env ?? process.env),
    workspaceFolder,
    workspaceRoot: workspaceFolder,
    userHome,
  };
  const servers: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(value[key] as Record<string, unknown>)) {
    const server = isRecord(entry) ? shape.translate(entry) : entry;
    // A disabled server is not started, so what it refers to need not be set.
    if (!isRecord(server) || server.disabled === true) {
      servers[name] = server;
      continue;
    }
    if (!isRecord(entry)) continue;
    const input = JSON.stringify(server).match(/\$\{input:([^}]*)\}/);
    if (input) {
      // VS Code asks the user for these; nobody can here. The server is left out, and said so.
      ignored(
        name,
        `MCP server "${name}" uses \${input:${input[1]}}, which VS Code asks the user for; it was left out (write the value, or \${env:NAME}, instead)`,
      );
      continue;
    }
    for (const field of Object.keys(entry)) {
      if (!shape.usedKeys.has(field)) ignored(name, `MCP server "${name}": the key "${field}" is not used`);
    }
    if (globs.length > 0) {
      server.toolFilter = { ...(isRecord(server.toolFilter) ? server.toolFilter : {}), globs };
    }
    const expanded = expandEnvironment(server, env, `${key}.${name}`) as Record<string, unknown>;
    const { envFile, httpUrl, ...rest } = expanded;
    if (typeof httpUrl === "string") {
      rest.url = httpUrl;
      rest.type ??= "http";
    }
    if (typeof envFile === "string") {
      rest.env = {
        ...readEnvFile(resolve(workspaceFolder, envFile), name),
        ...(isRecord(rest.env) ? rest.env : {}),
      };
    }
    servers[name] = rest;
  }
  return { mcpServers: servers };
}

/** A dotenv file's `KEY=value` lines (quotes taken off, `#` comments and `export ` skipped). */
function readEnvFile(path: string, server: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new BridleError(
      "invalid_config",
      `invalid MCP config: MCP server "${server}" names the envFile ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const values: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = line.match(/^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/);
    if (!match) continue;
    let raw = match[2] as string;
    const quoted = raw.match(/^(["'])(.*)\1$/);
    if (quoted) raw = quoted[2] as string;
    else raw = raw.replace(/\s+#.*$/, "");
    values[match[1] as string] = raw;
  }
  return values;
}

export function isStdioConfig(config: McpServerConfig): config is StdioServerConfig {
  return "command" in config && typeof config.command === "string";
}

export interface ParseOptions {
  /** Where `${VAR}`, `${VAR:-default}` and `${env:VAR}` in the servers' strings are looked up. Default process.env. */
  readonly env?: EnvironmentValues;
  /** `${workspaceFolder}` (VS Code, Cursor), and where a relative `envFile` is found. Default process.cwd(). */
  readonly workspaceFolder?: string;
  /** `${userHome}`. Default the user's home folder. */
  readonly userHome?: string;
  /** Told about each part of the config that is not used (an unknown key, a server left out), naming the server. */
  readonly onIgnored?: (server: string, message: string) => void;
}

/**
 * Validates an `mcpServers` config (an object, or JSON text), with environment references filled in;
 * throws BridleError "invalid_config" naming the server and field. Disabled servers are left out.
 */
export function parseMcpConfig(
  input: McpConfigInput | string,
  options: ParseOptions = {},
): Record<string, McpServerConfig> {
  let value: unknown = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new BridleError("invalid_config", `MCP config is not valid JSON: ${(error as Error).message}`);
    }
  }
  value = normalizeShape(value, options);
  const parsed = mcpConfigSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 10)
      .map((issue) => `${issue.path.join(".") || "(config)"}: ${issue.message}`);
    throw new BridleError("invalid_config", `invalid MCP config: ${problems.join("; ")}`);
  }
  const servers: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(parsed.data.mcpServers)) {
    if ("command" in server && "url" in server) {
      throw new BridleError("invalid_config", `MCP server "${name}" has both command and url; keep one`);
    }
    if (!server.disabled) servers[name] = server;
  }
  return servers;
}
