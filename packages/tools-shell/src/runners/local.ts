import { commandEnv, type LimitEnforcement, type SandboxPolicy } from "../sandbox/policy.js";
import { processLimits, setupLimits, tracksTree } from "./limits.js";
import {
  deathSignalPrefix,
  type PidNamespaceProbe,
  pidNamespacePrefix,
  probePrefix,
  warmChainArgv,
} from "./pid-namespace.js";
import { launch, SHELL } from "./process-tree.js";
import type { CommandRequest, CommandRunner, RunningCommand } from "./runner.js";
import { shellSpawner } from "./spawner-client.js";
import { type WarmChains, WarmStart } from "./warm.js";

export interface LocalRunnerOptions {
  /**
   * Put every command in its own cgroup, where one can be created, so a timeout, an abort or the end of
   * the command also reaches processes that left its process group (setsid). Default true; it costs a
   * cgroup migration per command (about 10 ms on cgroup v1), so it is skipped when the command has its own
   * pid namespace and no process or memory limit: the namespace ends every process in it with the command.
   */
  readonly trackProcessTree?: boolean;
  /**
   * Run every command in its own pid namespace with a fresh /proc, where the system allows it (root, or
   * unprivileged user namespaces): the command then sees no other process — not the agent, not its
   * ancestors, not their environments (API keys) or memory. Default true; false runs commands as plain
   * children of the agent, able to read /proc of every process of this user.
   */
  readonly pidNamespace?: boolean;
  /**
   * Start the next commands' isolation chains (setpriv, unshare, the namespace's init; two are kept
   * waiting) ahead of time, while the model is thinking, so a command waits only for its own shell. Each
   * command still gets a chain of its own, used once. Default true; it applies, where commands get their
   * own pid namespace, to commands of up to 4 KiB with no process or memory limit; the others start cold.
   */
  readonly warmStart?: boolean;
  /** How long a chain started ahead waits for a command before it is stopped (default 120000 ms). */
  readonly warmIdleMs?: number;
  /**
   * Start the chains ahead from a small spawner process of this package's own, which hands their pipes to
   * this process, instead of from this process: a fork costs a large process's main thread milliseconds
   * (more the more memory it holds). Default true where the package is built (dist/shell-spawner.js);
   * else chains start here.
   */
  readonly spawner?: boolean;
}

/**
 * Runs commands on the host file system, in their own process group and, where the
 * system allows, their own pid namespace, with a cleared environment; they die with the agent. It
 * isolates nothing else: its `enforcement` says so.
 */
export class LocalRunner implements CommandRunner {
  readonly name = "local";
  readonly #track: boolean;
  readonly #pidNamespace: boolean;
  #probe: Promise<PidNamespaceProbe> | undefined;
  #prefix: Promise<{ cold: string[]; warm: WarmChains | undefined }> | undefined;
  readonly #warmStart: boolean;
  readonly #warmIdleMs: number;
  readonly #spawner: boolean;
  #warm: WarmStart | undefined;
  #closed = false;

  constructor(options: LocalRunnerOptions = {}) {
    this.#track = options.trackProcessTree ?? true;
    this.#pidNamespace = options.pidNamespace ?? true;
    this.#warmStart = options.warmStart ?? true;
    this.#warmIdleMs = options.warmIdleMs ?? 120_000;
    this.#spawner = options.spawner ?? true;
  }

  /**
   * Stop the chains started ahead, and start none again; resolves once none is being started. Commands
   * still run after it, each started cold.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#warm?.close();
  }

  /** Whether commands get their own pid namespace here (false when the option turned it off). */
  probe(): Promise<PidNamespaceProbe> {
    if (!this.#pidNamespace)
      return Promise.resolve({ available: false, reason: "turned off (pidNamespace: false)" });
    this.#probe ??= probePrefix(pidNamespacePrefix(), "unshare --pid (a pid namespace for each command)");
    return this.#probe;
  }

  /**
   * Whether the pid namespace alone reaches the whole tree: its init dies with the command's first process
   * (unshare --kill-child), and the kernel then ends every process in the namespace, those that left the
   * process group included. A cgroup is still made for a process or memory limit.
   */
  async #namespaceTracks(policy: SandboxPolicy): Promise<boolean> {
    if (policy.max_processes !== undefined || policy.max_memory_mb !== undefined) return false;
    return (await this.probe()).available;
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
      (await this.probe()).available
        ? {
            limit: "other_processes",
            enforced: true,
            how: "its own pid namespace and /proc: no other process, nor its environment or memory, is visible",
          }
        : {
            limit: "other_processes",
            enforced: false,
            how: `no pid namespace (${(await this.probe()).reason}): a command can read /proc of every process of this user, their environments and command lines included`,
          },
      { limit: "allowed_env", enforced: true, how: "the environment is cleared to the allowed names" },
      {
        limit: "max_execution_ms",
        enforced: true,
        how: (await this.#namespaceTracks(policy))
          ? "SIGTERM then SIGKILL to the process group; everything else in the command's pid namespace ends with it"
          : this.#track && (await tracksTree())
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

  /**
   * What goes in front of every command: its pid namespace where it can have one, else setpriv alone;
   * and, with a namespace, the chain a warm start keeps waiting.
   */
  #chainPrefix(): Promise<{ cold: string[]; warm: WarmChains | undefined }> {
    this.#prefix ??= (async () => {
      if ((await this.probe()).available) {
        const warm = {
          local: warmChainArgv(SHELL, { deathSignal: true }),
          spawned: warmChainArgv(SHELL, { deathSignal: false }),
        };
        return { cold: pidNamespacePrefix(), warm };
      }
      const deathSignal = await probePrefix(deathSignalPrefix(), "setpriv --pdeathsig");
      return { cold: deathSignal.available ? deathSignalPrefix() : [], warm: undefined };
    })();
    return this.#prefix;
  }

  async start(request: CommandRequest, policy: SandboxPolicy): Promise<RunningCommand> {
    const limits = await setupLimits(policy, {
      track: this.#track && !(await this.#namespaceTracks(policy)),
    });
    const prefix = await this.#chainPrefix();
    if (
      prefix.warm &&
      this.#warmStart &&
      !this.#closed &&
      !limits.cgroup &&
      limits.ulimits.length === 0 &&
      WarmStart.fits(request)
    ) {
      this.#warm ??= new WarmStart(prefix.warm, this.#warmIdleMs, this.#spawner ? shellSpawner() : undefined);
      const running = await this.#warm.run(request, commandEnv(policy));
      if (running) return running;
    }
    return launch(request, policy, { argv: [...prefix.cold, SHELL, "-c", request.command], ...limits });
  }
}
