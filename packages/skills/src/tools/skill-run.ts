import { type AnyTool, BridleError, defineTool, isWithin, type Workspace } from "@bridle/core";
import type { PolicyResult } from "@bridle/shell-policy";
import type { ShellEnvironment } from "@bridle/tools-shell";
import { z } from "zod";
import type { SkillActivations } from "../activation.js";
import type { SkillRegistry } from "../registry.js";
import { DEFAULT_INTERPRETERS, planScript, type ScriptPlan } from "./script-plan.js";

export const skillRunInputSchema = z.object({
  skill: z.string().min(1).describe("The skill's name"),
  script: z.string().min(1).describe("The script, relative to the skill's folder (e.g. scripts/check.py)"),
  args: z
    .array(z.string().max(16_384))
    .max(256)
    .default([])
    .describe("Arguments, each passed to the script as one word exactly as given (no shell quoting needed)"),
  timeout_ms: z.number().int().positive().optional().describe("Soft timeout in milliseconds"),
});

/** The JSON text the model receives. */
export interface SkillRunResult {
  readonly skill: string;
  readonly script: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly exit_code: number;
  readonly success: boolean;
  readonly timed_out: boolean;
  readonly message?: string;
}

export interface SkillRunDetails {
  readonly result: SkillRunResult;
  readonly argv: readonly string[];
  readonly policy: PolicyResult | undefined;
  readonly runner: string;
  readonly duration_ms: number;
  readonly stdout_file: string | undefined;
  readonly stderr_file: string | undefined;
}

export interface SkillRunOptions {
  /** Interpreters by extension (default DEFAULT_INTERPRETERS: .py, .sh, .bash, .js, .mjs, .cjs). */
  readonly interpreters?: Readonly<Record<string, readonly string[]>>;
  /**
   * Run skill scripts without asking the approver. The command policy cannot see into a script, so
   * it asks about every one; trust the skills you installed only when nobody but you can write them
   * (a skills folder inside a workspace the model can write is not such a place). Default false.
   */
  readonly trustScripts?: boolean;
}

export function createSkillRunTool(
  registry: SkillRegistry,
  activations: SkillActivations,
  env: ShellEnvironment,
  options: SkillRunOptions = {},
): AnyTool {
  const interpreters = options.interpreters ?? DEFAULT_INTERPRETERS;
  // One plan per arguments object: approval and execution judge the same command.
  const plans = new WeakMap<object, Promise<ScriptPlan>>();
  const planOf = (args: z.output<typeof skillRunInputSchema>, workspace: Workspace): Promise<ScriptPlan> => {
    let plan = plans.get(args);
    if (!plan) {
      plan = planScript(registry.get(args.skill), args.script, args.args, workspace, interpreters);
      plans.set(args, plan);
    }
    return plan;
  };
  return defineTool({
    name: "skill_run",
    description:
      "Run a script from a skill's folder (.py with python3, .sh with bash, .js with node) and get JSON {skill, script, stdout, stderr, exit_code, success, timed_out, message?}. " +
      "It starts in the workspace root; `args` are passed as separate words. Arguments naming paths outside the workspace or the skill's folder are refused. " +
      "A non-zero exit is a normal result; long output keeps its head and tail." +
      env.unenforcedNote(),
    inputSchema: skillRunInputSchema,
    annotations: { destructive: true },
    // Our own soft and hard timeouts fire first; core's is only the backstop.
    timeoutMs: env.sandbox.max_execution_ms + env.killGraceMs + 10_000,
    needsApproval: async (args, call) => {
      if (options.trustScripts) return false;
      try {
        const plan = await planOf(args, call.workspace);
        return env.needsApproval({ command: plan.command }, call.workspace);
      } catch {
        // The call is refused at execution with a clear failure: nothing to approve.
        return false;
      }
    },
    // Why a call asks: what the command policy said of the script's command (the shell tools' scope, from
    // the verdict needsApproval left), the script named inside its skill rather than by its real path;
    // when the policy did not ask (the session's mode did), which script it runs.
    approvalScope: async (args, call) => {
      const named = `${args.skill}/${args.script}`;
      const runs = `runs the skill script ${named}`;
      let plan: ScriptPlan;
      try {
        plan = await planOf(args, call.workspace);
      } catch {
        // Refused when it executes, with a clear failure: nothing more to say of it here.
        return { why: runs };
      }
      const scope = await env.approvalScope({ command: plan.command }, call.workspace);
      return { ...scope, why: scope.why ? scope.why.replaceAll(plan.scriptPath, named) : runs };
    },
    execute: async (args, ctx) => {
      const skill = registry.get(args.skill);
      const plan = await planOf(args, ctx.workspace);
      await assertVisible(env, plan, ctx.workspace);
      activations.activate(ctx.runId, skill);
      // The shell tools' one command path: the same admission, run and description of the exit as bash.
      const admission = await env.admit({ command: plan.command }, ctx.workspace);
      const { timeoutMs, note } = env.timeoutFor(args.timeout_ms);
      const notes = note ? [note] : [];
      const run = await env.run(admission, ctx, { timeoutMs });
      const { exit, stdout: out, stderr: err } = run;
      const ended = env.describeExit(run, { timeoutMs, workspace: ctx.workspace });
      notes.push(...ended.notes);
      const result: SkillRunResult = {
        skill: skill.name,
        script: args.script,
        stdout: out.text,
        stderr: err.text,
        exit_code: ended.exit_code,
        success: ended.success,
        timed_out: ended.timed_out,
        ...(notes.length > 0 ? { message: notes.join("; ") } : {}),
      };
      const details: SkillRunDetails = {
        result,
        argv: plan.argv,
        policy: admission.verdict,
        runner: env.runner.name,
        duration_ms: exit.durationMs,
        stdout_file: out.spillPath,
        stderr_file: err.spillPath,
      };
      return { content: JSON.stringify(result), details };
    },
  });
}

/**
 * The bubblewrap runner gives each command an empty private /tmp, so a script kept under /tmp outside the
 * workspace does not exist inside the sandbox. That is the app's configuration, not the model's to fix.
 */
async function assertVisible(env: ShellEnvironment, plan: ScriptPlan, workspace: Workspace): Promise<void> {
  if (!env.sandboxed) return;
  if (!isWithin("/tmp", plan.scriptPath) || (await workspace.contains(plan.scriptPath))) return;
  throw new BridleError(
    "invalid_config",
    `the skill script ${plan.scriptPath} is under /tmp, which the bubblewrap sandbox replaces with an empty folder; keep skills inside the workspace or outside /tmp`,
  );
}
