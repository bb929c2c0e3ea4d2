import { BridleError } from "@bridle/core";

export type EnvironmentValues = Readonly<Record<string, string | undefined>>;

// `${VAR}` and `${VAR:-default}` as Claude Code's .mcp.json writes them, `${env:VAR}` as Cursor and VS Code do.
const REFERENCE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Every string inside `value` with its environment references filled in, so a shared config file can
 * name a token without holding it. A reference to an unset variable with no default is an error naming
 * the variable and where it was used, not a silently empty header.
 */
export function expandEnvironment(value: unknown, env: EnvironmentValues, path: string): unknown {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (_, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined) return found;
      if (fallback !== undefined) return fallback;
      throw new BridleError(
        "invalid_config",
        `invalid MCP config: ${path} uses \${${name}}, which is not set (write \${${name}:-default} for a default)`,
      );
    });
  }
  if (Array.isArray(value))
    return value.map((item, index) => expandEnvironment(item, env, `${path}.${index}`));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, expandEnvironment(item, env, `${path}.${key}`)]),
    );
  }
  return value;
}
