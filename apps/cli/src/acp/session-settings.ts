// A session's settings: `bridle run`'s (flags, the user's config, the folder's config behind trust) read
// for the folder the client names, with the client's MCP servers beside the configured ones.
import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { type McpServer, RequestError } from "@agentclientprotocol/sdk";
import { type AcpMcpServer, fromAcpSession, parseMcpConfig } from "@bridle/tools-mcp";
import type { CliFlags } from "../settings/args.js";
import { loadSettings, type Settings } from "../settings/config.js";
import { settleFlagsProvider } from "../settings/provider-choice.js";

export async function sessionSettings(
  flags: CliFlags,
  cwd: string,
  servers: readonly McpServer[],
  warn: (line: string) => void,
): Promise<Settings> {
  await checkFolder(cwd);
  // No terminal to ask on (stdin is the protocol): a folder's sensitive settings apply only once trusted
  // (`bridle --trust` there, or this command's --trust), as for a script.
  const settings = await settleFlagsProvider(
    await loadSettings({ ...flags, cwd }, process.env, { warn }),
    flags,
  );
  if (servers.length === 0) return settings;
  const fromClient = parseMcpConfig(fromAcpSession(servers as readonly AcpMcpServer[]));
  // The configured servers in any shape the config file may take, normalized by tools-mcp's own parser.
  const configured = settings.mcpConfig === undefined ? {} : parseMcpConfig(settings.mcpConfig);
  for (const name of Object.keys(fromClient)) {
    if (Object.hasOwn(configured, name))
      warn(`bridle: the editor's MCP server "${name}" replaces the configured one`);
  }
  return { ...settings, mcpConfig: JSON.stringify({ mcpServers: { ...configured, ...fromClient } }) };
}

/** ACP names folders by absolute path; one that is not there would make every tool answer NotFound. */
async function checkFolder(cwd: string): Promise<void> {
  if (!isAbsolute(cwd))
    throw RequestError.invalidParams(undefined, `cwd must be an absolute path, not "${cwd}"`);
  const folder = await stat(cwd).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!folder) throw RequestError.invalidParams(undefined, `cwd ${cwd} is not an existing folder`);
}
