import type { ToolCallEnv, Workspace } from "@bridle/core";
import { OutputCapture } from "../output/capture.js";
import type { RunningCommand } from "../runners/runner.js";
import type { ShellEnvironment } from "./environment.js";
import type { CapturedRun } from "./exit-description.js";
import type { SandboxPermissions } from "./permission-mode.js";
import { ProgressPump } from "./progress.js";

/**
 * Run one admitted command: through the runner its admission chose, output streamed as progress and
 * captured with spill files named after the call, runaway output stopped, the call's signal killing the
 * tree. Tools reach it through `ShellEnvironment.run`.
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
  const { command, cwd, timeoutMs, sandbox_permissions } = request;
  running = await env.runnerFor({ sandbox_permissions }).start(
    {
      command,
      cwd,
      timeoutMs,
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

/** A stream's capture for a call: head and tail kept, the rest spilled to a file named for it. */
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
