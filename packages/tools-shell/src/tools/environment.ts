import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { BridleError, ToolFailure, type Workspace } from "@bridle/core";
import { CommandPolicy } from "../policy/check.js";
import { realRootsOf } from "../policy/paths.js";
import type { CommandPolicyOptions, PolicyResult } from "../policy/types.js";
import { BubblewrapRunner } from "../runners/bubblewrap.js";
import { LocalRunner } from "../runners/local.js";
import type { CommandRunner } from "../runners/runner.js";
import {
  type LimitEnforcement,
  type SandboxPolicy,
  type SandboxPolicyInput,
  sandboxPolicy,
} from "../sandbox/policy.js";

export interface ShellToolsOptions {
  /** Where commands run (default: a LocalRunner). */
  readonly runner?: CommandRunner;
  readonly sandbox?: SandboxPolicyInput;
  /** The command policy: a CommandPolicy, its options, or false to send every command to the approver. */
  readonly policy?: CommandPolicy | CommandPolicyOptions | false;
  /**
   * Where full outputs are spilled, relative to the first workspace root unless absolute
   * (default ".bridle/shell-output": inside the workspace, so the file tools can read them).
   */
  readonly outputDir?: string;
  /** Between SIGTERM and SIGKILL after a timeout (default 2000 ms). */
  readonly killGraceMs?: number;
  /** Bytes per stream written to a spill file at most; past it the command is stopped (default 64 MiB). */
  readonly maxOutputFileBytes?: number;
  /** Refuse to start (invalid_config) when the runner cannot enforce a limit of the policy. */
  readonly requireEnforced?: boolean;
}

export interface CommandArgs {
  readonly command: string;
  readonly cwd?: string | undefined;
}

/** What the shell tools share: the runner, the sandbox policy, the command policy and its verdicts. */
export class ShellEnvironment {
  readonly runner: CommandRunner;
  readonly sandbox: SandboxPolicy;
  readonly policy: CommandPolicy | undefined;
  readonly enforcement: readonly LimitEnforcement[];
  readonly killGraceMs: number;
  readonly maxOutputFileBytes: number;
  readonly #outputDir: string;
  readonly #verdicts = new WeakMap<object, Promise<PolicyResult | undefined>>();
  readonly #cwds = new WeakMap<object, Promise<string>>();

  private constructor(
    options: ShellToolsOptions,
    runner: CommandRunner,
    sandbox: SandboxPolicy,
    enforcement: readonly LimitEnforcement[],
  ) {
    this.runner = runner;
    this.sandbox = sandbox;
    this.enforcement = enforcement;
    this.policy =
      options.policy === false
        ? undefined
        : options.policy instanceof CommandPolicy
          ? options.policy
          : new CommandPolicy(options.policy ?? {});
    this.killGraceMs = options.killGraceMs ?? 2_000;
    this.maxOutputFileBytes = options.maxOutputFileBytes ?? 64 * 1024 * 1024;
    this.#outputDir = options.outputDir ?? join(".bridle", "shell-output");
  }

  static async create(options: ShellToolsOptions = {}): Promise<ShellEnvironment> {
    const sandbox = sandboxPolicy(options.sandbox);
    const runner = options.runner ?? new LocalRunner();
    if (runner instanceof BubblewrapRunner) {
      const probe = await runner.probe();
      if (!probe.available)
        throw new BridleError("invalid_config", `the bubblewrap runner cannot run here: ${probe.reason}`);
    }
    const enforcement = await runner.enforcement(sandbox);
    const missing = enforcement.filter((limit) => !limit.enforced);
    if (options.requireEnforced && missing.length > 0) {
      throw new BridleError(
        "invalid_config",
        `the ${runner.name} runner cannot enforce: ${missing.map((l) => `${l.limit} (${l.how})`).join("; ")}`,
      );
    }
    return new ShellEnvironment(options, runner, sandbox, enforcement);
  }

  /** Limits the runner cannot enforce, in one line for the model and the user. */
  unenforcedNote(): string {
    const missing = this.enforcement.filter((limit) => !limit.enforced);
    if (missing.length === 0) return "";
    return ` Not enforced by the ${this.runner.name} runner: ${missing.map((l) => `${l.limit} (${l.how})`).join("; ")}.`;
  }

  /**
   * The folder a call's command starts in, resolved once per arguments object (the verdict and the
   * execution share it: each resolution is a round trip to the file system).
   */
  #callCwd(args: CommandArgs, workspace: Workspace): Promise<string> {
    let cwd = this.#cwds.get(args);
    if (!cwd) {
      cwd = this.cwd(workspace, args.cwd);
      this.#cwds.set(args, cwd);
    }
    return cwd;
  }

  /**
   * The folder a command starts in: an existing directory inside the workspace. Its stat is synchronous,
   * as the workspace's resolution is: a thread-pool round trip would cost more than the call.
   */
  async cwd(workspace: Workspace, cwd: string | undefined): Promise<string> {
    const resolved = await workspace.resolveExisting(cwd ?? ".");
    if (!statSync(resolved).isDirectory())
      throw new ToolFailure("InvalidInput", `cwd ${cwd} is not a directory`);
    return resolved;
  }

  /** The policy's verdict on a call, computed once per arguments object (approval and execution share it). */
  verdict(args: CommandArgs, workspace: Workspace): Promise<PolicyResult | undefined> {
    let verdict = this.#verdicts.get(args);
    if (!verdict) {
      const policy = this.policy;
      verdict = policy
        ? this.#callCwd(args, workspace).then((cwd) => policy.check(args.command, workspace, cwd))
        : Promise.resolve(undefined);
      this.#verdicts.set(args, verdict);
    }
    return verdict;
  }

  /** Whether the run must ask before this call: the policy says "ask", or there is no policy. */
  async needsApproval(args: CommandArgs, workspace: Workspace): Promise<boolean> {
    if (!this.policy) return true;
    try {
      return (await this.verdict(args, workspace))?.decision === "ask";
    } catch (error) {
      // A cwd outside the workspace: execution refuses it with a clear failure, nothing to approve.
      // Anything else propagates, and core counts a throwing needsApproval as "needs approval".
      if (error instanceof ToolFailure) return false;
      throw error;
    }
  }

  /** Refuse a call the sandbox or the policy forbids; the verdict goes back for the result's details. */
  async admit(
    args: CommandArgs,
    workspace: Workspace,
  ): Promise<{ cwd: string; verdict: PolicyResult | undefined }> {
    if (!this.sandbox.shell_enabled)
      throw new ToolFailure("Denied", "shell commands are disabled by the sandbox policy");
    const cwd = await this.#callCwd(args, workspace);
    const verdict = await this.verdict(args, workspace);
    if (verdict?.decision === "deny") {
      throw new ToolFailure(
        "Denied",
        `the command policy denies this command: ${verdict.reasons.slice(0, 5).join("; ")}`,
        { details: verdict },
      );
    }
    return { cwd, verdict };
  }

  outputPath(workspace: Workspace, runId: string, name: string): string {
    const base = isAbsolute(this.#outputDir) ? this.#outputDir : join(workspace.root, this.#outputDir);
    return join(base, safeName(runId), safeName(name));
  }

  /** Create the spill folder; inside the workspace it gets a .gitignore, so spills never show in git status. */
  prepareOutputDir(workspace: Workspace): void {
    if (isAbsolute(this.#outputDir)) return;
    const base = join(workspace.root, this.#outputDir);
    mkdirSync(base, { recursive: true });
    const ignore = join(base, ".gitignore");
    if (!existsSync(ignore)) writeFileSync(ignore, "*\n");
  }

  writableRoots(workspace: Workspace): string[] {
    return realRootsOf(workspace);
  }
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120) || "_";
}
