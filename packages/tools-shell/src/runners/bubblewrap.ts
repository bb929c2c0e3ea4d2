import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorMessage, isWithin, ToolFailure } from "@bridle/core";
import { type CommandView, mountScanner, mountsAndEntries } from "../sandbox/agent-config.js";
import { type LimitEnforcement, type SandboxPolicy, sandboxPolicy } from "../sandbox/policy.js";
import { defaultQuarantineFolder, quarantineCreated } from "../sandbox/quarantine.js";
import { RootOnlyListing } from "../sandbox/root-only.js";
import type { TreeScanner } from "../sandbox/tree-scan.js";
import { type SandboxView, SYSTEM_TREES, shownTrees, viewArgs } from "../sandbox/view.js";
import { processLimits, setupLimits } from "./limits.js";
import { programOnPath } from "./pid-namespace.js";
import { probeRun } from "./probe-run.js";
import { launch, SHELL } from "./process-tree.js";
import type { CommandExit, CommandRequest, CommandRunner, RunningCommand } from "./runner.js";

const IS_ROOT = process.getuid?.() === 0;
// System trees an administrator edits by hand, where new root-only files (keys, passwords) appear: listed
// once per runner (tens of ms). The package-managed trees are listed once per process (about a second of
// lstat calls for a large /usr).
const ADMIN_TREES = ["/etc", "/opt"];
const PACKAGE_TREES = SYSTEM_TREES.filter((tree) => !ADMIN_TREES.includes(tree));
let packageTreesListing: RootOnlyListing | undefined;

export interface BubblewrapOptions extends SandboxView {
  /** The bwrap binary (default: "bwrap" from the absolute folders of PATH). */
  readonly bwrap?: string;
  /**
   * Replace every secret-named file and folder (core's `isSecretPath`) of the workspace and of the shown
   * parts of home with an empty one, for each command (default true; off for a workspace that allows
   * secrets).
   */
  readonly maskSecrets?: boolean;
  /**
   * Files and folders one command's walk of the workspace and shown folders may list (default 200,000):
   * past it the command does not run, since what was not listed cannot be masked.
   */
  readonly maxScanEntries?: number;
  /**
   * Where a protected path a command created (a `.git`, `bridle.config.*`, a `.bridle` settings file,
   * where none was) is moved after the command, below a folder per command named by time (default
   * `$XDG_STATE_HOME/bridle/quarantine`, else `~/.local/state/bridle/quarantine`).
   */
  readonly quarantine?: string;
  /**
   * When the agent runs as root: the trees whose root-only files and folders (and sockets) are masked
   * (default: the system trees). Listed in the background from the probe on; the first command waits
   * for the list, and does not run if it cannot be made.
   */
  readonly rootOnlyTrees?: readonly string[];
}

export interface SandboxProbe {
  readonly available: boolean;
  /** Why not, when it is not: missing binary, user namespaces disabled, … */
  readonly reason?: string;
  readonly version?: string;
}

/**
 * Runs each command in a bubblewrap sandbox built from nothing: the system trees read-only, the
 * workspace roots writable with their agent configuration read-only, an empty home, private /tmp and
 * /run (no host Unix sockets), no network unless the policy allows it, its own user, pid, ipc and uts
 * namespaces (no other process, nor its environment, is visible), no capabilities, and it dies with
 * its parent.
 */
export class BubblewrapRunner implements CommandRunner {
  readonly name = "bubblewrap";
  readonly #bwrap: string;
  readonly #view: SandboxView;
  readonly #maskSecrets: boolean;
  readonly #scanner: TreeScanner;
  readonly #quarantine: string;
  readonly #rootOnlyTrees: readonly string[] | undefined;
  #ownTrees: RootOnlyListing | undefined;
  #adminTrees: RootOnlyListing | undefined;
  #probe: Promise<SandboxProbe> | undefined;

  constructor(options: BubblewrapOptions = {}) {
    const { bwrap, maskSecrets, maxScanEntries, quarantine, rootOnlyTrees, ...view } = options;
    this.#bwrap = bwrap ?? programOnPath("bwrap");
    this.#view = view;
    this.#maskSecrets = maskSecrets ?? true;
    this.#scanner = mountScanner(maxScanEntries);
    this.#quarantine = quarantine ?? defaultQuarantineFolder();
    this.#rootOnlyTrees = rootOnlyTrees;
  }

  /** Whether a default bubblewrap sandbox runs here (it needs user namespaces, or root). */
  static probe(bwrap?: string): Promise<SandboxProbe> {
    return new BubblewrapRunner(bwrap === undefined ? {} : { bwrap }).probe();
  }

  /**
   * Whether this runner works here: bwrap runs `echo` with the flags a command gets (namespaces, mounts,
   * a masked file and folder, the dropped capabilities), in a throwaway workspace. Cached per runner.
   * Where it works, the root-only files to mask start being listed, for the first command.
   */
  probe(): Promise<SandboxProbe> {
    this.#probe ??= this.#runProbe().then((probe) => {
      if (probe.available) this.#rootOnlyListings();
      return probe;
    });
    return this.#probe;
  }

  /** The bwrap binary this runner starts. */
  get bwrap(): string {
    return this.#bwrap;
  }

  async enforcement(policy: SandboxPolicy): Promise<readonly LimitEnforcement[]> {
    const network: LimitEnforcement =
      policy.network === "enabled"
        ? { limit: "network", enforced: true, how: "the network is shared, as the policy allows" }
        : policy.network === "disabled"
          ? {
              limit: "network",
              enforced: true,
              how: "a new network namespace with only loopback (--unshare-net); no abstract Unix sockets either",
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
        how:
          "only the system trees (read-only) and the workspace (writable; every .git, bridle.config.* and .bridle but its data folders read-only" +
          (this.#maskSecrets ? "; secret-named files and folders emptied" : "") +
          "); an empty home, private /tmp and /run (no host Unix sockets)" +
          (IS_ROOT ? ", root-only files masked, no capabilities" : ", no capabilities"),
      },
      network,
      {
        limit: "other_processes",
        enforced: true,
        how: "its own pid namespace and /proc: no other process, nor its environment or memory, is visible",
      },
      { limit: "allowed_env", enforced: true, how: "the environment is cleared to the allowed names" },
      {
        limit: "max_execution_ms",
        enforced: true,
        how: "SIGTERM then SIGKILL; its own pid namespace ends every process inside when bwrap dies, and bwrap dies with the agent",
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
    const masked = await this.#rootOnlyForCommand();
    const limits = await setupLimits(policy, { track: false });
    const { args, view } = this.#prepare(request, policy, masked);
    const argv = [this.#bwrap, ...args, "--", SHELL, "-c", request.command];
    const running = launch(request, policy, { argv: closingInherited(argv), ...limits });
    // The command is over only once what it created where no mount could stop it is out of the workspace.
    const done = running.done.then((exit) => this.#afterCommand(exit, request.writableRoots, view));
    return {
      pid: running.pid,
      done,
      stop: async (reason) => {
        await running.stop(reason);
        return done;
      },
    };
  }

  /**
   * The bwrap arguments for one command (exposed for inspection and tests): once the root-only files
   * are listed, when the agent runs as root.
   */
  async args(
    request: Pick<CommandRequest, "cwd" | "writableRoots">,
    policy: SandboxPolicy,
  ): Promise<string[]> {
    return this.#prepare(request, policy, await this.#rootOnlyForCommand()).args;
  }

  /**
   * The listings of the root-only files to mask (none unless root), started once per runner (the
   * package trees' once per process) and not waited for here, so starting them holds nothing up.
   */
  #rootOnlyListings(): readonly RootOnlyListing[] {
    if (!IS_ROOT) return [];
    if (this.#rootOnlyTrees !== undefined) {
      this.#ownTrees ??= RootOnlyListing.start(this.#rootOnlyTrees);
      return [this.#ownTrees];
    }
    this.#adminTrees ??= RootOnlyListing.start(ADMIN_TREES);
    packageTreesListing ??= RootOnlyListing.start(PACKAGE_TREES);
    return [this.#adminTrees, packageTreesListing];
  }

  /** The root-only files; a listing that failed is forgotten, so the next command lists again. */
  async #rootOnlyFiles(): Promise<string[]> {
    const listings = this.#rootOnlyListings();
    try {
      return (await Promise.all(listings.map((listing) => listing.wait()))).flat();
    } catch (error) {
      this.#ownTrees = undefined;
      this.#adminTrees = undefined;
      if (packageTreesListing !== undefined && listings.includes(packageTreesListing))
        packageTreesListing = undefined;
      throw error;
    }
  }

  // What was not listed cannot be masked: without the list, the command does not run.
  async #rootOnlyForCommand(): Promise<string[]> {
    try {
      return await this.#rootOnlyFiles();
    } catch (error) {
      throw new ToolFailure(
        "ToolError",
        `the sandbox could not list the root-only files it masks (${errorMessage(error).slice(0, 200)}), so the command did not run; run it again to retry`,
      );
    }
  }

  #afterCommand(exit: CommandExit, writableRoots: readonly string[], view: CommandView): CommandExit {
    try {
      const { quarantined, notes } = quarantineCreated({
        scanner: this.#scanner,
        writableRoots,
        before: view,
        folder: this.#quarantine,
      });
      return notes.length === 0 ? exit : { ...exit, quarantined, notes: [...(exit.notes ?? []), ...notes] };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return {
        ...exit,
        notes: [
          ...(exit.notes ?? []),
          `the check for protected paths the command may have created failed (${message.slice(0, 200)}); the next command mounts any it finds read-only`,
        ],
      };
    }
  }

  #prepare(
    request: Pick<CommandRequest, "cwd" | "writableRoots">,
    policy: SandboxPolicy,
    masked: readonly string[],
  ): { args: string[]; view: CommandView } {
    const args = [
      "--die-with-parent",
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
    ];
    if (policy.network !== "enabled") args.push("--unshare-net");
    // Owning a file needs no capability: a sandbox running as root still opens root's 0600 files, so
    // those (`masked`) are mounted over.
    // Walked for each command: a `.env` or `.git` made by the previous command is mounted over by this one.
    const view = mountsAndEntries(this.#scanner, {
      writableRoots: request.writableRoots,
      shownTrees: shownTrees(this.#view),
      protect: this.#view.protect ?? [],
      maskSecrets: this.#maskSecrets,
    });
    // What was quarantined stays out of reach when a root holds the quarantine (an agent started in ~).
    const quarantine = request.writableRoots.some((root) => isWithin(root, this.#quarantine))
      ? [this.#quarantine]
      : [];
    args.push(
      ...viewArgs(this.#view, {
        writableRoots: request.writableRoots,
        network: policy.network === "enabled",
        masked: [...masked, ...quarantine],
        found: view.mounts,
      }),
    );
    args.push("--cap-drop", "ALL", "--chdir", request.cwd);
    return { args, view };
  }

  // The probe proves what every command needs (namespaces, the view's mounts, masking a file and a
  // folder) without waiting for the root-only files: their list is not needed to know bwrap runs here.
  async #runProbe(): Promise<SandboxProbe> {
    const version = await probeRun(this.#bwrap, ["--version"], { timeoutMs: 5_000 });
    if (version.failed)
      return {
        available: false,
        reason: `${this.#bwrap} is not installed or not runnable (${version.message})`,
      };
    const workspace = await mkdtemp(join(tmpdir(), "bridle-probe-"));
    try {
      const folder = join(workspace, "masked-folder");
      const file = join(workspace, "masked-file");
      await mkdir(folder);
      await writeFile(file, "");
      const request = { cwd: workspace, writableRoots: [workspace] };
      const { args } = this.#prepare(request, sandboxPolicy(), [folder, file]);
      const run = await probeRun(this.#bwrap, [...args, "--", SHELL, "-c", "echo ok"], {
        timeoutMs: 10_000,
        env: { PATH: "/usr/bin:/bin" },
      });
      if (run.failed || run.stdout.trim() !== "ok") {
        return {
          available: false,
          reason: `${this.#bwrap} cannot create its sandbox here (user namespaces disabled or restricted?): ${(run.stderr || run.message).trim().slice(0, 300)}`,
          version: version.stdout.trim(),
        };
      }
      return { available: true, version: version.stdout.trim() };
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  }
}

const O_CLOEXEC = 0o2000000;

/**
 * Descriptors above 2 that this process would pass to a program it starts: Node opens its own with
 * O_CLOEXEC and marks those it inherited up to the first gap above fd 15, but one past that (a pipe, a
 * socket, an open file a parent left) keeps no such flag, and neither Node's spawn nor bwrap closes it.
 * /proc's fdinfo tells the flags.
 */
function inheritableDescriptors(): number[] {
  const out: number[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return out;
  }
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))?.[1];
      if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
    } catch {
      // closed since it was listed (the listing's own descriptor among them)
    }
  }
  return out;
}

// A command gets its own three descriptors and no other: anything else the agent holds open without
// O_CLOEXEC is closed by a shell in front of bwrap (bash: a plain sh reads only one-digit numbers).
function closingInherited(argv: readonly string[]): string[] {
  const shell = SHELL === "/bin/bash" ? SHELL : undefined;
  const fds = inheritableDescriptors().filter((fd) => shell !== undefined || fd <= 9);
  if (fds.length === 0) return [...argv];
  const closes = fds.map((fd) => `${fd}>&-`).join(" ");
  return [shell ?? "/bin/sh", "-c", `exec ${closes}; exec "$@"`, "close-fds", ...argv];
}
