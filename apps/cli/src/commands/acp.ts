import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { CliError } from "../cli-error.js";
import { warnLine } from "../run/agent.js";
import { splitCodingFlags } from "../run/coding.js";
import type { CliFlags } from "../settings/args.js";

/**
 * `bridle acp`: an Agent Client Protocol agent on stdin/stdout for editors (Zed, JetBrains, Neovim…).
 * Each session's folder and MCP servers come from the editor; the model flags and config are `bridle run`'s.
 * stdout carries only the protocol: every line for a person goes to stderr, which editors log.
 */
export async function acpCommand(flags: CliFlags): Promise<number> {
  for (const flag of ["session", "resume", "json"] as const) {
    if (flags[flag] !== undefined) {
      throw new CliError(`--${flag} is not an option of bridle acp: the editor opens and loads sessions`, 2);
    }
  }
  // --plan is the mode new sessions start in, not a setting.
  const { plan, ...settingFlags } = flags;
  const { coding, rest } = splitCodingFlags(settingFlags);
  const { serveAcp } = await import("../acp/server.js");
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  await serveAcp(stream, { flags: rest, coding, warn: warnLine, ...(plan ? { plan: true } : {}) });
  return 0;
}
