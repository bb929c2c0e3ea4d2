import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { isInside } from "../policy/paths.js";
import type { LimitEnforcement, SandboxPolicy } from "../sandbox/policy.js";
import { processLimits, setupLimits } from "./limits.js";
import { launch, SHELL } from "./process-tree.js";
import type { CommandRequest, CommandRunner, RunningCommand } from "./runner.js";

// Credential stores in the home folder: hidden inside the sandbox even though the root is readable.
const HOME_SECRETS = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".docker",
  ".kube",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".pgpass",
];

export interface BubblewrapOptions {
  /** The bwrap binary (default "bwrap" on PATH). */
  readonly bwrap?: string;
  /** Extra folders to hide (replaced by an empty tmpfs). */
  readonly hide?: readonly string[];
}

export interface SandboxProbe {
  readonly available: boolean;
  /** Why not, when it is not: missing binary, user namespaces disabled, … */
  readonly reason?: string;
  readonly version?: string;
}

/**
 * Runs each command in a bubblewrap sandbox: the root file system read-only, the workspace roots
 * writable, a private /tmp, no network unless the policy allows it, its own pid namespace (killing
 * bwrap ends every process inside), and it dies with its parent.
 */
export class BubblewrapRunner implements CommandRunner {
  readonly name = "bubblewrap";
  readonly #bwrap: string;
  readonly #hide: readonly string[];
  static #probes = new Map<string, Promise<SandboxProbe>>();

  constructor(options: BubblewrapOptions = {}) {
    this.#bwrap = options.bwrap ?? "bwrap";
    this.#hide = options.hide ?? [];
  }

  /** Whether bwrap runs here (it needs user namespaces, or root). Cached per binary. */
  static probe(bwrap = "bwrap"): Promise<SandboxProbe> {
    let probe = BubblewrapRunner.#probes.get(bwrap);
    if (!probe) {
      probe = runProbe(bwrap);
      BubblewrapRunner.#probes.set(bwrap, probe);
    }
    return probe;
  }

  /** Whether this runner's bwrap works here. */
  probe(): Promise<SandboxProbe> {
    return BubblewrapRunner.probe(this.#bwrap);
  }

  async enforcement(policy: SandboxPolicy): Promise<readonly LimitEnforcement[]> {
    const network: LimitEnforcement =
      policy.network === "enabled"
        ? { limit: "network", enforced: true, how: "the network is shared, as the policy allows" }
        : policy.network === "disabled"
          ? {
              limit: "network",
              enforced: true,
              how: "a new network namespace with only loopback (--unshare-net)",
            }
          : {
              limit: "network",
              enforced: true,
              how: "bubblewrap cannot filter hosts, so the network is cut off entirely (stricter than the allow-list)",
            };
    return [
      {
        limit: "filesystem",
        enforced: true,
        how: "root read-only, workspace roots writable, private /tmp, credential folders of HOME hidden",
      },
      network,
      { limit: "allowed_env", enforced: true, how: "the environment is cleared to the allowed names" },
      {
        limit: "max_execution_ms",
        enforced: true,
        how: "SIGTERM then SIGKILL; its own pid namespace ends every process inside when bwrap dies",
      },
      {
        limit: "output",
        enforced: true,
        how: "head and tail kept, the rest spilled to a file, runaway output stopped",
      },
      ...(await processLimits(policy, "the processes of the sandbox's user namespace")),
    ];
  }

  async start(request: CommandRequest, policy: SandboxPolicy): Promise<RunningCommand> {
    // The pid namespace already holds every process of the command: no tracking cgroup needed.
    const limits = await setupLimits(policy, { track: false });
    const argv = [this.#bwrap, ...this.args(request, policy), "--", SHELL, "-c", request.command];
    return launch(request, policy, { argv, ...limits });
  }

  /** The bwrap arguments for one command (exposed for inspection and tests). */
  args(request: Pick<CommandRequest, "cwd" | "writableRoots">, policy: SandboxPolicy): string[] {
    const args = [
      "--die-with-parent",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
    ];
    if (policy.network !== "enabled") args.push("--unshare-net");
    args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
    const home = homedir();
    for (const hidden of [...HOME_SECRETS.map((name) => join(home, name)), ...this.#hide]) {
      if (!existsSync(hidden) || isInside(hidden, request.writableRoots)) continue;
      if (statSync(hidden).isDirectory()) args.push("--tmpfs", hidden);
      else args.push("--ro-bind", "/dev/null", hidden);
    }
    for (const root of request.writableRoots) args.push("--bind", root, root);
    // As root, the sandbox would keep every capability (and could remount the root writable).
    if (process.getuid?.() === 0) args.push("--cap-drop", "ALL");
    args.push("--chdir", request.cwd);
    return args;
  }
}

async function runProbe(bwrap: string): Promise<SandboxProbe> {
  const version = await execa(bwrap, ["--version"], { reject: false, timeout: 5_000 });
  if (version.failed)
    return {
      available: false,
      reason: `${bwrap} is not installed or not runnable (${version.shortMessage})`,
    };
  const trial = await execa(
    bwrap,
    [
      "--die-with-parent",
      "--unshare-pid",
      "--unshare-net",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--",
      "/bin/sh",
      "-c",
      "echo ok",
    ],
    { reject: false, timeout: 10_000 },
  );
  if (trial.failed || trial.stdout.trim() !== "ok") {
    return {
      available: false,
      reason: `${bwrap} cannot create namespaces here (user namespaces disabled or restricted?): ${(trial.stderr || trial.shortMessage || "").trim().slice(0, 300)}`,
      version: version.stdout.trim(),
    };
  }
  return { available: true, version: version.stdout.trim() };
}
