import { type AnyTool, argumentAliases, defineTool } from "@bridle/core";
import { type CommandWrites, commandWrites, type PolicyResult } from "@bridle/shell-policy";
import { z } from "zod";
import type { LimitEnforcement } from "../sandbox/policy.js";
import type { ShellEnvironment } from "./environment.js";

/** The escalation request bash and bash_start take (Codex's names). */
export const escalationFields = {
  sandbox_permissions: z.enum(["use_default", "require_escalated"]).optional(),
  justification: z.string().min(1).max(500).optional(),
};

export const bashInputSchema = z.object({
  command: z.string().min(1),
  timeout_ms: z.number().int().positive().optional(),
  cwd: z.string().min(1).optional(),
  ...escalationFields,
});

/** The JSON text the model receives. */
export interface BashResult {
  readonly command: string;
  readonly shell: string;
  readonly stdout: string;
  readonly stderr: string;
  /** The exit status; 128 + the signal number when a signal ended it, as shells report it. */
  readonly exit_code: number;
  readonly success: boolean;
  readonly timed_out: boolean;
  readonly timeout_kind?: "soft" | "hard";
  readonly message?: string;
}

/** What interfaces see in the result's details. */
export interface BashDetails {
  readonly result: BashResult;
  readonly policy: PolicyResult | undefined;
  /**
   * "none" when the policy proved the command writes nothing (known readers only, no output
   * redirection, no substitution); "possible" otherwise. A repository rescan may be skipped on "none".
   */
  readonly writes: CommandWrites;
  readonly runner: string;
  readonly cwd: string;
  readonly duration_ms: number;
  readonly stdout_bytes: number;
  readonly stderr_bytes: number;
  readonly stdout_file: string | undefined;
  readonly stderr_file: string | undefined;
  readonly limits: readonly LimitEnforcement[];
}

export function createBashTool(env: ShellEnvironment): AnyTool {
  const maxMs = env.sandbox.max_execution_ms;
  return defineTool({
    name: "bash",
    description:
      "Runs bash -c in the workspace; returns JSON stdout, stderr, exit_code (non-zero is normal). " +
      `Max timeout ${maxMs} ms; no credentials in env. ` +
      modeNote(env) +
      env.unenforcedNote(),
    inputSchema: bashInputSchema,
    // The spelling other agents' shell tools taught models (Codex's cmd).
    prepareArguments: argumentAliases({ cmd: "command" }),
    annotations: { destructive: true, open_world: env.sandbox.network !== "disabled" },
    // Commands may write what their siblings read (`cat f` beside `rm f`): a batch holding bash runs in order.
    sequential: true,
    // Our own soft and hard timeouts fire first; core's is only the backstop.
    timeoutMs: maxMs + env.killGraceMs + 10_000,
    needsApproval: (args, call) => env.needsApproval(args, call.workspace),
    approvalScope: (args, call) => env.approvalScope(args, call.workspace),
    execute: async (args, ctx) => {
      const admission = await env.admit(args, ctx.workspace);
      const { cwd, verdict } = admission;
      const { timeoutMs, note } = env.timeoutFor(args.timeout_ms);
      const notes = note ? [note] : [];
      const run = await env.run(admission, ctx, { timeoutMs });
      const { exit, stdout: out, stderr: err } = run;
      const ended = env.describeExit(run, { timeoutMs, workspace: ctx.workspace });
      notes.push(...ended.notes);
      const result: BashResult = {
        command: args.command,
        shell: exit.shell,
        stdout: out.text,
        stderr: err.text,
        exit_code: ended.exit_code,
        success: ended.success,
        timed_out: ended.timed_out,
        ...(ended.timeout_kind ? { timeout_kind: ended.timeout_kind } : {}),
        ...(notes.length > 0 ? { message: notes.join("; ") } : {}),
      };
      const details: BashDetails = {
        result,
        policy: verdict,
        writes: commandWrites(verdict),
        runner: env.runnerFor(args).name,
        cwd: ctx.workspace.display(cwd),
        duration_ms: exit.durationMs,
        stdout_bytes: out.totalBytes,
        stderr_bytes: err.totalBytes,
        stdout_file: out.spillPath,
        stderr_file: err.spillPath,
        limits: env.enforcement,
      };
      return { content: JSON.stringify(result), details };
    },
  });
}

/** What the model is told about where its commands run and what asks, per permission mode. */
export function modeNote(env: ShellEnvironment): string {
  const escalate = ' To leave it, set sandbox_permissions "require_escalated"; a person is asked.';
  switch (env.permissionMode) {
    case "full-access":
      return "Commands run without a sandbox and without approval.";
    case "read-only":
      return "The session is read-only: only commands the policy proves read-only run; anything that may write is refused.";
    case "ask":
      return env.sandboxed
        ? `Commands run in a sandbox (no network; writes only in the workspace and temp folders; .git and agent config read-only). Any command not proven read-only needs approval.${escalate}`
        : "Any command not proven read-only needs approval; commands that write outside the workspace or touch secrets are denied.";
    case "workspace":
      return env.sandboxed
        ? `Sandboxed, no approval needed: no network, writes only in the workspace and temp, .git and agent config read-only, secrets masked.${escalate}`
        : "Asks approval unless proven read-only; denies writes outside the workspace and secrets.";
  }
}
