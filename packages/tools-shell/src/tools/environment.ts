import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { type ApprovalScope, BridleError, type ToolCallEnv, ToolFailure, type Workspace } from "@bridle/core";
import {
  CommandPolicy,
  type CommandPolicyOptions,
  canonicalArgs,
  matchingRule,
  type PolicyMode,
  type PolicyResult,
  type PolicyRule,
  realRootsOf,
} from "@bridle/shell-policy";
import { BubblewrapRunner } from "../runners/bubblewrap.js";
import { LocalRunner } from "../runners/local.js";
import type { CommandRunner } from "../runners/runner.js";
import {
  type LimitEnforcement,
  type SandboxPolicy,
  type SandboxPolicyInput,
  sandboxPolicy,
} from "../sandbox/policy.js";
import { commandScope } from "./approval-scope.js";
import { type CapturedRun, describeExit, type ExitDescription } from "./exit-description.js";
import {
  type CommandOutcome,
  commandOutcome,
  describePermissionMode,
  PERMISSION_MODES,
  type PermissionMode,
  type SandboxPermissions,
  strictest,
} from "./permission-mode.js";
import { runCaptured } from "./run-captured.js";
import { VerdictCache } from "./verdict-cache.js";

export interface ShellToolsOptions {
  /** Where commands run (default: a LocalRunner). */
  readonly runner?: CommandRunner;
  readonly sandbox?: SandboxPolicyInput;
  /**
   * How far commands reach without a person (default "workspace": the sandbox is the boundary where the
   * runner is a BubblewrapRunner, the strict policy where it is not). "full-access" takes no BubblewrapRunner.
   */
  readonly permissionMode?: PermissionMode;
  /**
   * The command policy: a CommandPolicy, its options, or false for none (then nothing is proven read-only:
   * outside the sandbox every command asks, and in "read-only" every command is refused). Its write mode
   * follows the permission mode: "workspace-write" only where the sandbox is the boundary, else "read-only";
   * in "read-only" its allow rules are dropped (a rule is not proof that a command only reads).
   */
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
  /** "require_escalated": run outside the sandbox; a person is asked every time. */
  readonly sandbox_permissions?: SandboxPermissions | undefined;
  /** Why the command must run outside the sandbox (required with "require_escalated"). */
  readonly justification?: string | undefined;
  /**
   * What the command runs that its text does not show (a package script's body): each is judged too, in
   * the same folder, and the strictest outcome holds.
   */
  readonly runs?: readonly string[] | undefined;
}

/** A command the permission mode let through: what `run` takes. */
export interface Admission {
  /** The command line to run, exactly as judged. */
  readonly command: string;
  /** The folder it starts in, resolved inside the workspace. */
  readonly cwd: string;
  /** The policy's verdict on the command (undefined without a policy); the result's details carry it. */
  readonly verdict: PolicyResult | undefined;
  /** "require_escalated": the call asked to leave the sandbox, and its approval let it. */
  readonly sandbox_permissions?: SandboxPermissions;
}

function escalated(args: Pick<CommandArgs, "sandbox_permissions">): boolean {
  return args.sandbox_permissions === "require_escalated";
}

/** What the shell tools share: the runner, the sandbox policy, the command policy and its verdicts. */
export class ShellEnvironment {
  readonly runner: CommandRunner;
  readonly permissionMode: PermissionMode;
  /** The runner is the bubblewrap sandbox: where the mode allows, it is the boundary. */
  readonly sandboxed: boolean;
  readonly sandbox: SandboxPolicy;
  readonly policy: CommandPolicy | undefined;
  readonly enforcement: readonly LimitEnforcement[];
  readonly killGraceMs: number;
  readonly maxOutputFileBytes: number;
  readonly #outputDir: string;
  readonly #verdicts = new VerdictCache();
  readonly #cwds = new WeakMap<object, Promise<string>>();
  #outside: CommandRunner | undefined;
  /** The user's deny and ask rules: they hold inside the sandbox too, where the policy's own verdict does not. */
  readonly #userRules: readonly PolicyRule[];

  private constructor(
    options: ShellToolsOptions,
    runner: CommandRunner,
    sandbox: SandboxPolicy,
    enforcement: readonly LimitEnforcement[],
  ) {
    this.runner = runner;
    this.permissionMode = options.permissionMode ?? "workspace";
    this.sandboxed = runner instanceof BubblewrapRunner;
    this.sandbox = sandbox;
    this.enforcement = enforcement;
    this.policy = modePolicy(options.policy, this.permissionMode, this.sandboxed);
    this.#userRules = (this.policy?.rules ?? []).filter((rule) => rule.decision !== "allow");
    this.killGraceMs = options.killGraceMs ?? 2_000;
    this.maxOutputFileBytes = options.maxOutputFileBytes ?? 64 * 1024 * 1024;
    this.#outputDir = options.outputDir ?? join(".bridle", "shell-output");
  }

  static async create(options: ShellToolsOptions = {}): Promise<ShellEnvironment> {
    const mode = options.permissionMode ?? "workspace";
    if (!PERMISSION_MODES.includes(mode))
      throw new BridleError(
        "invalid_config",
        `permissionMode must be one of ${PERMISSION_MODES.join(", ")} (got ${String(mode)})`,
      );
    if (mode === "full-access" && options.runner instanceof BubblewrapRunner)
      throw new BridleError(
        "invalid_config",
        "permission mode full-access runs commands without a sandbox: leave out the BubblewrapRunner, or choose the workspace mode",
      );
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

  /** The mode in force and what bounds the commands, in one line (said once at start). */
  describeMode(): string {
    return describePermissionMode(this.permissionMode, this.sandboxed);
  }

  /** Where a call's command runs: outside the sandbox only when it asked to (and was approved). */
  runnerFor(args: Pick<CommandArgs, "sandbox_permissions">): CommandRunner {
    if (!escalated(args) || !this.sandboxed) return this.runner;
    this.#outside ??= new LocalRunner();
    return this.#outside;
  }

  /** Limits the runner cannot enforce, in one line for the model. */
  unenforcedNote(): string {
    const missing = this.enforcement.filter((limit) => !limit.enforced);
    if (missing.length === 0) return "";
    // The names only: how each falls short is for the person (the run's limits), not worth request bytes.
    return ` Not enforced: ${missing.map((l) => l.limit).join(", ")}.`;
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

  /**
   * The policy's verdict on a call's command, judged once per command text and resolved folder until a
   * command is admitted to run (verdict-cache.ts): the approval and the execution of a call share it.
   */
  async verdict(args: CommandArgs, workspace: Workspace): Promise<PolicyResult | undefined> {
    return this.#judge(args.command, await this.#callCwd(args, workspace), workspace);
  }

  #judge(command: string, cwd: string, workspace: Workspace): Promise<PolicyResult | undefined> {
    const policy = this.policy;
    if (!policy) return Promise.resolve(undefined);
    return this.#verdicts.get(workspace, cwd, command, () => policy.check(command, workspace, cwd));
  }

  /**
   * What the permission mode does with a call: run it, ask a person, or refuse it (permission-mode.ts);
   * with scripts it runs, the strictest of theirs and its own.
   */
  async outcome(args: CommandArgs, workspace: Workspace): Promise<CommandOutcome> {
    // With full access only the user's deny rules need a verdict; inside the sandbox it still sorts the
    // asks (the user's ask rules, a command that can print a secret from git's object store). Admitting
    // the call judges it anyway (the result's details), and the two share the verdict cache.
    const needsVerdict = this.permissionMode !== "full-access" || this.#userRules.length > 0;
    const cwd = await this.#callCwd(args, workspace);
    const judged = [
      { command: args.command, subject: undefined },
      ...(args.runs ?? []).map((command) => ({ command, subject: "the script it runs" })),
    ];
    const outcomes: CommandOutcome[] = [];
    for (const { command, subject } of judged) {
      const verdict = needsVerdict ? await this.#judge(command, cwd, workspace) : undefined;
      const outcome = commandOutcome({
        mode: this.permissionMode,
        sandboxed: this.sandboxed,
        verdict,
        escalated: escalated(args),
        justification: args.justification,
        userRule: this.#userRule(verdict),
        subject,
      });
      // A refusal is final: the scripts after it need no judgement.
      if (outcome.kind === "refuse") return outcome;
      outcomes.push(outcome);
    }
    return strictest(outcomes);
  }

  /** The strictest deny or ask rule of the user's matching a sub-command of the verdict. */
  #userRule(verdict: PolicyResult | undefined): { decision: "deny" | "ask"; label: string } | undefined {
    if (!verdict || this.#userRules.length === 0) return undefined;
    let found: { decision: "deny" | "ask"; label: string } | undefined;
    for (const report of verdict.subcommands) {
      const rule = matchingRule(this.#userRules, canonicalArgs(report.argv));
      if (rule?.decision === "deny") return { decision: "deny", label: rule.argv.join(" ") };
      if (rule?.decision === "ask") found ??= { decision: "ask", label: rule.argv.join(" ") };
    }
    return found;
  }

  /** Whether the run must ask before this call (the permission mode's table; a refusal is execution's to say). */
  async needsApproval(args: CommandArgs, workspace: Workspace): Promise<boolean> {
    try {
      return (await this.outcome(args, workspace)).kind === "ask";
    } catch (error) {
      // A cwd outside the workspace: execution refuses it with a clear failure, nothing to approve.
      // Anything else propagates, and core counts a throwing needsApproval as "needs approval".
      if (error instanceof ToolFailure) return false;
      throw error;
    }
  }

  /**
   * How far "always" may reach for a call that asks (approval-scope.ts), and why it asks: the outcome
   * `needsApproval` worked out, from the verdicts it left in the cache (nothing is judged again).
   */
  async approvalScope(args: CommandArgs, workspace: Workspace): Promise<ApprovalScope> {
    const verdict = escalated(args) ? undefined : await this.verdict(args, workspace);
    const outcome = await this.outcome(args, workspace);
    const scope = commandScope(verdict, {
      sandboxed: this.sandboxed,
      escalated: escalated(args),
      ...(args.justification === undefined ? {} : { justification: args.justification }),
    });
    return outcome.kind === "ask" ? { ...scope, why: outcome.reason } : scope;
  }

  /**
   * The one way into running a command, for every tool that runs one (bash, bash_start, skill_run,
   * run_check): refuse a call the sandbox or the permission mode forbids (a ToolFailure the model can act
   * on), else let it through with its folder and verdict. Nothing judged before it is kept after it: the
   * command may change what the next one reaches.
   */
  async admit(args: CommandArgs, workspace: Workspace): Promise<Admission> {
    if (!this.sandbox.shell_enabled)
      throw new ToolFailure("Denied", "shell commands are disabled by the sandbox policy");
    const cwd = await this.#callCwd(args, workspace);
    const outcome = await this.outcome(args, workspace);
    // The verdict also feeds the result's details (`writes`), where the sandbox alone decided.
    const verdict = this.policy ? await this.verdict(args, workspace) : undefined;
    if (outcome.kind === "refuse")
      throw new ToolFailure(outcome.code, outcome.reason, verdict ? { details: verdict } : {});
    this.#verdicts.clear();
    return {
      command: args.command,
      cwd,
      verdict,
      ...(args.sandbox_permissions ? { sandbox_permissions: args.sandbox_permissions } : {}),
    };
  }

  /** A call's timeout: what it asked for, capped at the sandbox policy's limit (and a note saying so). */
  timeoutFor(requested: number | undefined): { readonly timeoutMs: number; readonly note?: string } {
    const maxMs = this.sandbox.max_execution_ms;
    if (requested === undefined) return { timeoutMs: maxMs };
    if (requested <= maxMs) return { timeoutMs: requested };
    return {
      timeoutMs: maxMs,
      note: `timeout_ms ${requested} is above the policy's ${maxMs} ms and was capped`,
    };
  }

  /**
   * Run an admitted command the way every tool does: through the runner its admission chose, output
   * streamed as progress and captured (head and tail, spill files named after the call), runaway output
   * stopped, the call's signal killing the process tree.
   */
  run(
    admission: Admission,
    call: ToolCallEnv,
    options: { readonly timeoutMs: number },
  ): Promise<CapturedRun> {
    return runCaptured(this, call, { ...admission, timeoutMs: options.timeoutMs });
  }

  /** How a run ended, in the words every tool gives the model (exit-description.ts). */
  describeExit(
    run: CapturedRun,
    options: { readonly timeoutMs: number; readonly workspace: Workspace },
  ): ExitDescription {
    return describeExit(run, {
      ...options,
      spillLimit: this.maxOutputFileBytes,
      memoryMb: this.sandbox.max_memory_mb,
    });
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

/** The policy for a permission mode: read-only judgement unless the sandbox is the boundary. */
function modePolicy(
  given: CommandPolicy | CommandPolicyOptions | false | undefined,
  mode: PermissionMode,
  sandboxed: boolean,
): CommandPolicy | undefined {
  if (given === false) return undefined;
  const policyMode: PolicyMode =
    mode === "workspace" && sandboxed
      ? "workspace-write"
      : mode === "full-access"
        ? "workspace-write"
        : "read-only";
  const options = given instanceof CommandPolicy ? { ...given.options, rules: given.rules } : (given ?? {});
  const rules = (options.rules ?? []).filter((rule) => mode !== "read-only" || rule.decision !== "allow");
  if (
    given instanceof CommandPolicy &&
    given.options.mode === policyMode &&
    rules.length === given.rules.length
  )
    return given;
  return new CommandPolicy({ ...options, rules, mode: policyMode });
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120) || "_";
}
