import { BridleError } from "@bridle/core";
import { z } from "zod";
import { type EnvironmentValues, expandEnvironment } from "./env-expansion.js";

// The `mcpServers` shape Claude Desktop, Claude Code, Cursor and Gemini CLI share. Keys this package does not
// use (autoApprove, alwaysAllow, …) are tolerated so an existing config file can be passed unchanged.

const stdioServerSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1, "command must not be empty"),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().min(1).optional(),
  disabled: z.boolean().optional(),
  /** Milliseconds a call may go without a response or progress notification. */
  timeout: z.number().int().positive().optional(),
});

const httpServerSchema = z.looseObject({
  /** "http" (Streamable HTTP, falling back to SSE) or "sse" (the older transport only). */
  type: z.enum(["http", "streamable-http", "streamableHttp", "sse"]).optional(),
  url: z.url({ protocol: /^https?$/, error: "url must be an http(s) URL" }),
  headers: z.record(z.string(), z.string()).default({}),
  disabled: z.boolean().optional(),
  timeout: z.number().int().positive().optional(),
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
/** What callers write: the `mcpServers` JSON other agents use. */
export type McpConfigInput = z.input<typeof mcpConfigSchema>;
export type McpServerConfigInput = z.input<typeof serverSchema>;

export function isStdioConfig(config: McpServerConfig): config is StdioServerConfig {
  return "command" in config && typeof config.command === "string";
}

export interface ParseOptions {
  /** Where `${VAR}`, `${VAR:-default}` and `${env:VAR}` in the servers' strings are looked up. Default process.env. */
  readonly env?: EnvironmentValues;
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
  const raw = (value as { mcpServers?: unknown } | null)?.mcpServers;
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    const env = options.env ?? process.env;
    const expanded = Object.entries(raw).map(([name, server]) =>
      // A disabled server is not started, so what it refers to need not be set.
      (server as { disabled?: unknown } | null)?.disabled === true
        ? [name, server]
        : [name, expandEnvironment(server, env, `mcpServers.${name}`)],
    );
    value = { ...(value as object), mcpServers: Object.fromEntries(expanded) };
  }
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
