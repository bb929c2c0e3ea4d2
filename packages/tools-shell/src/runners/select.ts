import { BridleError } from "@bridle/core";
import { type BubblewrapOptions, BubblewrapRunner } from "./bubblewrap.js";
import { LocalRunner, type LocalRunnerOptions } from "./local.js";
import type { CommandRunner } from "./runner.js";

/** "auto": the bubblewrap sandbox wherever it runs, else the local runner with a warning; "bwrap": the sandbox or an error; "off": the local runner. */
export type SandboxMode = "auto" | "bwrap" | "off";

export interface RunnerChoice {
  readonly runner: CommandRunner;
  /**
   * Set when "auto" could not start the sandbox: why, and what commands can then reach. An application
   * shows it once, where the user sees it.
   */
  readonly warning?: string;
}

/** Pick the runner for a sandbox mode, probing for real that the sandbox starts here. */
export async function selectRunner(
  mode: SandboxMode,
  options: BubblewrapOptions & LocalRunnerOptions = {},
): Promise<RunnerChoice> {
  const { pidNamespace, trackProcessTree, ...sandbox } = options;
  const local = () =>
    new LocalRunner({
      ...(pidNamespace === undefined ? {} : { pidNamespace }),
      ...(trackProcessTree === undefined ? {} : { trackProcessTree }),
    });
  if (mode === "off") return { runner: local() };
  const runner = new BubblewrapRunner(sandbox);
  const probe = await runner.probe();
  if (probe.available) return { runner };
  if (mode === "bwrap")
    throw new BridleError("invalid_config", `the bubblewrap sandbox cannot run here: ${probe.reason}`);
  const fallback = local();
  const isolated = (await fallback.probe()).available;
  const unprotected = [
    "read and write every file this user can (the home folder, ~/.ssh and other credentials included)",
    "connect to the host's Unix sockets (ssh-agent, docker, D-Bus, X11)",
    "use the network",
    ...(isolated
      ? []
      : ["read other processes' environments and memory (API keys of the agent's ancestors included)"]),
  ];
  return {
    runner: fallback,
    warning:
      `the shell sandbox cannot run here (${probe.reason}). Commands run unsandboxed and can ${unprotected.join(", ")}; ` +
      "only the command policy and approvals stand in the way. Install bubblewrap and allow unprivileged user namespaces to turn it on, or choose --sandbox off to run this way without this warning.",
  };
}
