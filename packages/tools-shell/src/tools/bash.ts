import { type AnyTool, argumentAliases, defineTool, type ToolCallEnv, type Workspace } from "@bridle/core";
import { z } from "zod";
import { type CapturedOutput, OutputCapture } from "../output/capture.js";
import type { PolicyResult } from "../policy/types.js";
import { type CommandWrites, commandWrites } from "../policy/writes.js";
import { type CommandExit, exitCodeOf, type RunningCommand } from "../runners/runner.js";
import type { LimitEnforcement } from "../sandbox/policy.js";
import type { ShellEnvironment } from "./environment.js";
import type { SandboxPermissions } from "./permission-mode.js";
import { ProgressPump } from "./progress.js";

/** The escalation request bash and bash_start take (Codex's names). */
export const escalationFields = {
  sandbox_permissions: z
    .enum(["use_default", "require_escalated"])
    .optional()
    .describe(
      '"require_escalated": run outside the sandbox (network, files outside the workspace); a person is asked each time',
    ),
  justification: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('Why it must run outside the sandbox; required with "require_escalated"'),
};

export const bashInputSchema = z.object({
  command: z.string().min(1),
  timeout_ms: z.number().int().positive().optional().describe("Soft timeout in ms (capped)"),
  cwd: z.string().min(1).optional().describe("Folder to run in (default: the workspace root)"),
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
      "Run a command with bash -c in the workspace; returns JSON with stdout, stderr and exit_code (non-zero is a normal result). " +
      "Long output keeps head and tail; the full text is in a file the result names. " +
      `Timeout ${maxMs} ms (the most allowed). No credentials in the environment. ` +
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
      const { cwd, verdict } = await env.admit(args, ctx.workspace);
      const notes: string[] = [];
      let timeoutMs = args.timeout_ms ?? maxMs;
      if (timeoutMs > maxMs) {
        notes.push(`timeout_ms ${timeoutMs} is above the policy's ${maxMs} ms and was capped`);
        timeoutMs = maxMs;
      }
      const {
        exit,
        stdout: out,
        stderr: err,
        runaway,
      } = await runCaptured(env, ctx, {
        command: args.command,
        cwd,
        timeoutMs,
        ...(args.sandbox_permissions ? { sandbox_permissions: args.sandbox_permissions } : {}),
      });
      const result = bashResult(
        args.command,
        { exit, out, err, timeoutMs, runaway, notes },
        env,
        ctx.workspace,
      );
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

/** One command's outcome with its output captured (head and tail, spill files). */
export interface CapturedRun {
  readonly exit: CommandExit;
  readonly stdout: CapturedOutput;
  readonly stderr: CapturedOutput;
  /** The output passed the spill limit and the command was stopped. */
  readonly runaway: boolean;
}

/**
 * Run one admitted command the way `bash` does: through the environment's runner, output streamed as
 * progress and captured with spill files named after the call, runaway output stopped, the call's
 * signal killing the tree. For tools that run commands of their own (a skill's scripts).
 */
export async function runCaptured(
  env: ShellEnvironment,
  call: ToolCallEnv,
  request: {
    readonly command: string;
    readonly cwd: string;
    readonly timeoutMs: number;
    /** Outside the sandbox: only for a call the permission mode admitted as an escalation. */
    readonly sandbox_permissions?: SandboxPermissions;
  },
): Promise<CapturedRun> {
  const pump = new ProgressPump((data) => call.progress(data));
  const name = (stream: string) => `${call.toolCallId}.${stream}`;
  const stdout = capture(env, call.workspace, call.runId, name("stdout"), env.sandbox.max_stdout_bytes);
  const stderr = capture(env, call.workspace, call.runId, name("stderr"), env.sandbox.max_stderr_bytes);
  let runaway = false;
  let running: RunningCommand | undefined;
  const { sandbox_permissions, ...command } = request;
  running = await env.runnerFor({ sandbox_permissions }).start(
    {
      ...command,
      writableRoots: env.writableRoots(call.workspace),
      killGraceMs: env.killGraceMs,
      signal: call.signal,
      onOutput: (stream, chunk) => {
        pump.push(stream, chunk);
        if (!(stream === "stdout" ? stdout : stderr).push(chunk) && !runaway) {
          runaway = true;
          void running?.stop();
        }
      },
    },
    env.sandbox,
  );
  try {
    const exit = await running.done;
    return { exit, stdout: stdout.finish(), stderr: stderr.finish(), runaway };
  } finally {
    pump.close();
  }
}

/** What the model is told about where its commands run and what asks, per permission mode. */
export function modeNote(env: ShellEnvironment): string {
  const escalate =
    ' To run one outside it (for the network, say), set sandbox_permissions "require_escalated" with a justification.';
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
        ? `Commands run in a sandbox without approval: no network, writes only in the workspace and temp folders, .git and agent config read-only, secrets masked.${escalate}`
        : "Commands the policy cannot prove read-only need approval; commands that write outside the workspace or touch secrets are denied.";
  }
}

export function capture(
  env: ShellEnvironment,
  workspace: Workspace,
  runId: string,
  name: string,
  maxBytes: number,
): OutputCapture {
  const spillPath = env.outputPath(workspace, runId, name);
  return new OutputCapture({
    maxBytes,
    spillPath,
    shownPath: workspace.display(spillPath),
    spillLimit: env.maxOutputFileBytes,
    beforeSpill: () => env.prepareOutputDir(workspace),
  });
}

interface Outcome {
  readonly exit: CommandExit;
  readonly out: CapturedOutput;
  readonly err: CapturedOutput;
  readonly timeoutMs: number;
  readonly runaway: boolean;
  readonly notes: string[];
}

function bashResult(
  command: string,
  outcome: Outcome,
  env: ShellEnvironment,
  workspace: Workspace,
): BashResult {
  const { exit, out, err, timeoutMs, runaway, notes } = outcome;
  const spillLimit = env.maxOutputFileBytes;
  const memoryMb = env.sandbox.max_memory_mb;
  const exitCode = exitCodeOf(exit);
  if (exit.timedOut === "soft")
    notes.push(`timed out after ${timeoutMs} ms: SIGTERM was sent to its process group and it stopped`);
  if (exit.timedOut === "hard")
    notes.push(`timed out after ${timeoutMs} ms and ignored SIGTERM: its process tree was killed (SIGKILL)`);
  if (exit.stoppedBy === "abort") notes.push("the run was aborted: the command's process tree was killed");
  if (runaway)
    notes.push(
      `output passed ${spillLimit} bytes: the command was stopped; the saved file holds the first ${spillLimit} bytes`,
    );
  else if (exitCode === 137 && !exit.stoppedBy && memoryMb !== undefined) {
    notes.push(`killed (SIGKILL), most likely by the memory limit of ${memoryMb} MiB`);
  } else if (exit.signal && !exit.timedOut && !exit.stoppedBy) notes.push(`ended by signal ${exit.signal}`);
  for (const [name, captured] of [
    ["stdout", out],
    ["stderr", err],
  ] as const) {
    if (captured.truncated && captured.spillPath) {
      notes.push(
        `${name} was ${captured.totalBytes} bytes; its head and tail are shown, all of it is in ${workspace.display(captured.spillPath)}`,
      );
    }
  }
  const timedOut = exit.timedOut !== false;
  return {
    command,
    shell: exit.shell,
    stdout: out.text,
    stderr: err.text,
    exit_code: exitCode,
    success: exitCode === 0 && !timedOut && !runaway,
    timed_out: timedOut,
    ...(exit.timedOut ? { timeout_kind: exit.timedOut } : {}),
    ...(notes.length > 0 ? { message: notes.join("; ") } : {}),
  };
}
