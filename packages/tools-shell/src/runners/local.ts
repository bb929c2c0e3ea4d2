import type { LimitEnforcement, SandboxPolicy } from "../sandbox/policy.js";
import { processLimits, setupLimits, tracksTree } from "./limits.js";
import { launch, SHELL } from "./process-tree.js";
import type { CommandRequest, CommandRunner, RunningCommand } from "./runner.js";

/**
 * Runs commands directly on the host (through execa), in their own process group, with a cleared
 * environment. It isolates nothing else: its `enforcement` says so.
 */
export interface LocalRunnerOptions {
  /**
   * Put every command in its own cgroup, where one can be created, so a timeout, an abort or the end of
   * the command also reaches processes that left its process group (setsid). Default true; it costs a
   * cgroup migration per command (about 10 ms on cgroup v1).
   */
  readonly trackProcessTree?: boolean;
}

export class LocalRunner implements CommandRunner {
  readonly name = "local";
  readonly #track: boolean;

  constructor(options: LocalRunnerOptions = {}) {
    this.#track = options.trackProcessTree ?? true;
  }

  async enforcement(policy: SandboxPolicy): Promise<readonly LimitEnforcement[]> {
    return [
      {
        limit: "filesystem",
        enforced: false,
        how: "commands run with this user's permissions; only the command policy keeps writes inside the workspace",
      },
      policy.network === "enabled"
        ? { limit: "network", enforced: true, how: "the network is open, as the policy allows" }
        : {
            limit: "network",
            enforced: false,
            how: "the local runner cannot cut the network off; use the bubblewrap runner",
          },
      { limit: "allowed_env", enforced: true, how: "the environment is cleared to the allowed names" },
      {
        limit: "max_execution_ms",
        enforced: true,
        how:
          this.#track && (await tracksTree())
            ? "SIGTERM then SIGKILL to the process group, and to everything in the command's cgroup"
            : "SIGTERM then SIGKILL to the process group; a process that starts its own session escapes it (no writable cgroup)",
      },
      {
        limit: "output",
        enforced: true,
        how: "head and tail kept, the rest spilled to a file, runaway output stopped",
      },
      ...(await processLimits(policy, "every process of this user")),
    ];
  }

  async start(request: CommandRequest, policy: SandboxPolicy): Promise<RunningCommand> {
    const limits = await setupLimits(policy, { track: this.#track });
    return launch(request, policy, { argv: [SHELL, "-c", request.command], ...limits });
  }
}
