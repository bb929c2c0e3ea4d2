import { type AnyTool, defineTool, ModelRetry, ToolFailure, type ToolOutput } from "@bridle/core";
import { shellQuote } from "@bridle/core/node";
import type { Admission, CommandArgs, ShellEnvironment } from "@bridle/tools-shell";
import { z } from "zod";
import { chooseCheck } from "../checks.js";
import { CHECK_KINDS, type CheckFact, type CheckKind, type DetectedCheck, FACT } from "../facts.js";
import type { CodingRunState, RunRegistry } from "../run-state.js";

const MAX_SHOWN_OUTPUT = 8_000;

export function createDetectChecksTool(runs: RunRegistry): AnyTool {
  return defineTool({
    name: "detect_checks",
    description:
      "The project's test, lint, typecheck and build commands (from package.json, Makefile, pyproject.toml, Cargo.toml, go.mod). run_check runs the first of a kind.",
    inputSchema: z.object({}),
    annotations: { read_only: true, idempotent: true },
    execute: async (_args, ctx) => {
      const { detected } = await runs.get(ctx.runId, ctx.workspace.root).state;
      const lines = CHECK_KINDS.map((kind) => {
        const found = detected.checks.filter((check) => check.kind === kind);
        if (found.length === 0) return `${kind}: unavailable (no command found)`;
        const [first, ...rest] = found as [DetectedCheck, ...DetectedCheck[]];
        const also =
          rest.length > 0 ? `; also: ${rest.map((c) => `${c.command} (${c.source})`).join(", ")}` : "";
        return `${kind}: ${first.command} (from ${first.source})${also}`;
      });
      if (detected.packageManager)
        lines.push(`package manager: ${detected.packageManager} (from the lockfile)`);
      return { content: lines.join("\n"), details: detected };
    },
  });
}

const runCheckSchema = z.object({
  kind: z.enum(["test", "lint", "typecheck", "build"]).describe("check"),
  target: z.string().min(1).max(300).optional().describe("test file or package"),
});

type RunCheckArgs = z.output<typeof runCheckSchema>;

/** The command line for a check and target; undefined when the check's runner takes no target. */
function commandFor(check: DetectedCheck, target: string | undefined): string | undefined {
  if (target === undefined) return check.command;
  if (check.command.startsWith("make ")) return undefined;
  const separator = /^(npm|pnpm|yarn|bun) run /.test(check.command) ? " --" : "";
  return `${check.command}${separator} ${shellQuote(target, "when-needed")}`;
}

interface Plan {
  readonly check: DetectedCheck;
  readonly command: string;
  /** What the shell tools admit: the command, and a package script's own text, which is what really runs. */
  readonly request: CommandArgs;
}

/** Argument objects are kept per call so approval and execution see one plan. */
const plans = new WeakMap<object, Plan | string>();

async function planFor(
  runs: RunRegistry,
  runId: string,
  root: string,
  args: RunCheckArgs,
): Promise<Plan | string> {
  const cached = plans.get(args);
  if (cached) return cached;
  const { detected } = await runs.get(runId, root).state;
  const check = chooseCheck(detected, args.kind);
  let plan: Plan | string;
  if (!check) plan = `no ${args.kind} command was found in this project (see detect_checks)`;
  else {
    const command = commandFor(check, args.target);
    plan =
      command === undefined
        ? `${check.command} takes no target: run the ${args.kind} check without one`
        : { check, command, request: { command, ...(check.body ? { runs: [check.body] } : {}) } };
  }
  plans.set(args, plan);
  return plan;
}

export interface RunCheckOptions {
  readonly shell: ShellEnvironment;
  /** Failed checks allowed after the first failure before the run stops. */
  readonly repairAttempts: number;
  readonly timeoutMs: number;
}

function tail(text: string): string {
  return text.length <= MAX_SHOWN_OUTPUT ? text : `…${text.slice(-MAX_SHOWN_OUTPUT)}`;
}

function record(state: CodingRunState, toolCallId: string, fact: CheckFact, ran: boolean): void {
  // The call's id orders the check against the changes its own call saw (a snapshot the test wrote).
  state.addFact(toolCallId, { kind: FACT.check, data: { ...fact, toolCallId } });
  if (ran) {
    state.addFact(toolCallId, {
      kind: FACT.command,
      data: { command: fact.command, exitCode: fact.exitCode ?? null, tool: "run_check", toolCallId },
    });
  }
}

export function createRunCheckTool(runs: RunRegistry, options: RunCheckOptions): AnyTool {
  const env = options.shell;
  const maxFailures = options.repairAttempts + 1;
  return defineTool({
    name: "run_check",
    description: `Run a detected check. After a failure: at most ${options.repairAttempts} repairs and reruns, then the run stops.`,
    inputSchema: runCheckSchema,
    // Tests may write (snapshots, caches): the overlay rescans after every check.
    annotations: { open_world: true },
    retryBudget: options.repairAttempts,
    timeoutMs: options.timeoutMs + env.killGraceMs + 10_000,
    needsApproval: async (args, call) => {
      const plan = await planFor(runs, call.runId, call.workspace.root, args);
      if (typeof plan === "string") return false;
      return env.needsApproval(plan.request, call.workspace);
    },
    // Why a call asks, and what "always" covers: the shell tools' scope of the check's command.
    approvalScope: async (args, call) => {
      const plan = await planFor(runs, call.runId, call.workspace.root, args);
      if (typeof plan === "string") return { why: `runs the ${args.kind} check` };
      return env.approvalScope(plan.request, call.workspace);
    },
    execute: async (args, ctx): Promise<ToolOutput<{ status: string; exitCode?: number }>> => {
      const state = await runs.get(ctx.runId, ctx.workspace.root).state;
      const plan = await planFor(runs, ctx.runId, ctx.workspace.root, args);
      const base = { kind: args.kind as CheckKind, failures: state.checkFailures, maxFailures };
      if (typeof plan === "string") {
        const status = plan.startsWith("no ") ? "unavailable" : "skipped";
        record(state, ctx.toolCallId, { ...base, command: "", status, note: plan }, false);
        return { content: `${args.kind}: ${status}: ${plan}`, details: { status } };
      }
      // The shell tools' one command path: what bash would refuse, the check skips with the same reason.
      let admission: Admission;
      try {
        admission = await env.admit(plan.request, ctx.workspace);
      } catch (error) {
        if (!(error instanceof ToolFailure)) throw error;
        const refusal = error.message;
        record(
          state,
          ctx.toolCallId,
          { ...base, command: plan.command, status: "skipped", note: refusal },
          false,
        );
        return { content: `${args.kind}: skipped: ${refusal}`, details: { status: "skipped" } };
      }
      const { timeoutMs } = env.timeoutFor(options.timeoutMs);
      const run = await env.run(admission, ctx, { timeoutMs });
      const ended = env.describeExit(run, { timeoutMs, workspace: ctx.workspace });
      const exitCode = ended.exit_code;
      const output = tail(`${run.stdout.text}${run.stderr.text ? `\n${run.stderr.text}` : ""}`.trim());
      const where = `${plan.command} (from ${plan.check.source})`;
      // How it ended beyond its code (a spill file, a signal, what the sandbox moved), when there is more.
      const said = ended.notes.length > 0 ? `\n(${ended.notes.join("; ")})` : "";
      if (ended.success) {
        record(state, ctx.toolCallId, { ...base, command: plan.command, status: "passed", exitCode }, true);
        return {
          content: `${args.kind} passed: ${where}${said}\n${output}`,
          details: { status: "passed", exitCode },
        };
      }
      state.checkFailures++;
      const note = ended.timed_out ? `timed out after ${timeoutMs} ms` : `exit code ${exitCode}`;
      const failures = state.checkFailures;
      const fact: CheckFact = { ...base, failures, command: plan.command, status: "failed", exitCode, note };
      record(state, ctx.toolCallId, fact, true);
      const left = maxFailures - failures;
      const next =
        left > 0
          ? `Fix the cause if it is clear and in scope, then run the check again (${left} repair attempt${left === 1 ? "" : "s"} left).`
          : "No repair attempts are left: the run stops here and the handoff reports the failure.";
      throw new ModelRetry(`${args.kind} failed: ${where}: ${note}. ${next}${said}\n${output}`);
    },
  });
}
