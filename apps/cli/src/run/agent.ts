// The CLI's front door to the recipe (@bridle/coding-agent): what only a terminal program adds to
// createCodingAgent — MCP elicitation, sampling and OAuth routed through the person at the terminal, and
// warnings written to stderr with control characters made visible.

import {
  type CodingAgent,
  type CodingAgentMode,
  type CodingAgentOptions,
  type CodingChoice,
  createCodingAgent,
  DEFAULT_CODING,
  type McpClientOptions,
} from "@bridle/coding-agent";
import type { Approver, Model } from "@bridle/core";
import { mcpInteraction } from "../mcp/mcp-interactive.js";
import type { Settings } from "../settings/config.js";
import { approveEverything, TerminalApprover, YesAtTerminal } from "../terminal/approvers.js";
import { oneLine, visible } from "../terminal/display-text.js";
import { toolGateHook } from "./tool-gate.js";

export type Agent = CodingAgent;

/** A line for the person, escaped: warnings quote file names and server messages from the workspace. */
export const warnLine = (line: string) => void process.stderr.write(`${visible(line)}\n`);

export async function composeAgent(
  settings: Settings,
  approver: Approver | undefined,
  coding: CodingChoice = DEFAULT_CODING,
  mode: CodingAgentMode = "run",
  /** The session's mode switch and who answers the agent's questions (plan mode, the ask-the-user tool). */
  modes: Pick<CodingAgentOptions, "startMode" | "switchModes" | "questions"> = {},
): Promise<Agent> {
  if (settings.sandbox === "off" || settings.permissionMode === "full-access") void probeLocalRunner();
  // A server that asks for OAuth, with a person at the terminal: the sign-in URL is printed and the
  // redirect received on a loopback port; sessions are kept per server (0600) in the user's config
  // folder. Without a terminal nobody could sign in, and the server fails to connect at once.
  const oauth =
    settings.mcpConfig !== undefined && process.stdin.isTTY
      ? (await import("@bridle/tools-mcp")).loopbackAuthorization({
          open: (server, url) =>
            void process.stderr.write(
              `bridle: sign in to MCP server "${oneLine(server, 60)}": ${oneLine(url.href, 2_000)}\n`,
            ),
        })
      : undefined;
  return createCodingAgent(
    { ...settings, coding },
    {
      mode,
      ...modes,
      providers: settings.providerPlugins,
      ...(approver ? { approver } : {}),
      // A turn's rewind checkpoint is taken while its first request is in flight (run/rewind.ts).
      hooks: [toolGateHook(settings.cwd)],
      warn: warnLine,
      mcpClient: (model) => ({ ...terminalMcpClient(approver, model), ...(oauth ? { oauth } : {}) }),
    },
  );
}

/**
 * Commands that run without the sandbox run on the local runner, which first tries, with a short chain of
 * processes, whether they can have their own pid namespace; what bash's description tells the model
 * depends on the answer, so it must come before the first request. Started here, before the recipe loads
 * the provider's SDK, the probe's processes run while that loads; the recipe's runner then finds the
 * answer (probes are cached per process). A failure here is the recipe's to meet and report.
 */
async function probeLocalRunner(): Promise<void> {
  try {
    const { LocalRunner } = await import("@bridle/tools-shell");
    await new LocalRunner().probe();
  } catch {}
}

function terminalMcpClient(approver: Approver | undefined, model: () => Model | undefined): McpClientOptions {
  return {
    // Elicitation and sampling go to the person at the terminal, or are refused and said (mcp-interactive.ts).
    ...mcpInteraction({
      ...(approver instanceof TerminalApprover
        ? { ask: (text: string, signal: AbortSignal) => approver.question(text, signal) }
        : {}),
      approveSampling: approver === approveEverything || approver instanceof YesAtTerminal,
      model,
      say: (text) => process.stderr.write(text),
    }),
  };
}
