import { existsSync } from "node:fs";
import { BridleError } from "@bridle/core";
import { execa } from "execa";
import type { CommandCgroup } from "../sandbox/cgroups.js";
import { commandEnv, type SandboxPolicy } from "../sandbox/policy.js";
import type { CommandExit, CommandRequest, RunningCommand } from "./runner.js";

/** The shell commands run in: bash when installed, else sh. Non-login: a login shell would source profile files that may export tokens. */
export const SHELL = existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";

// Every process group this process started and has not reaped: killed if Node exits first.
const live = new Set<number>();
process.once("exit", () => {
  for (const pid of live) killGroup(pid, "SIGKILL");
});

export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone
  }
}

export interface LaunchOptions {
  readonly argv: readonly string[];
  readonly cgroup?: CommandCgroup;
  /** ulimit settings applied before exec: -v (KiB of address space), -u (processes). */
  readonly ulimits?: readonly string[];
}

/**
 * Start argv in a new process group (so a timeout or abort reaches grandchildren) through a tiny sh
 * launcher that joins the cgroup and applies rlimits before exec. When the main process exits, what it
 * left running in its group is killed: nothing outlives the command.
 */
export function launch(
  request: CommandRequest,
  policy: SandboxPolicy,
  options: LaunchOptions,
): RunningCommand {
  const started = Date.now();
  const prelude: string[] = [];
  for (const file of options.cgroup?.procsFiles ?? []) prelude.push(`echo $$ > ${quote(file)} || exit 125`);
  for (const limit of options.ulimits ?? []) prelude.push(`ulimit ${limit} || exit 125`);
  const argv =
    prelude.length > 0
      ? ["/bin/sh", "-c", `${prelude.join("\n")}\nexec "$@"`, "sh", ...options.argv]
      : [...options.argv];
  const [file, ...args] = argv as [string, ...string[]];
  const child = execa(file, args, {
    cwd: request.cwd,
    env: commandEnv(policy),
    extendEnv: false,
    detached: true,
    stdin: "ignore",
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    encoding: "buffer",
  });
  const pid = child.pid;
  if (pid !== undefined) live.add(pid);
  child.stdout?.on("data", (chunk: Uint8Array) => request.onOutput?.("stdout", chunk));
  child.stderr?.on("data", (chunk: Uint8Array) => request.onOutput?.("stderr", chunk));

  let timedOut: CommandExit["timedOut"] = false;
  let stoppedBy: CommandExit["stoppedBy"];
  let killTimer: NodeJS.Timeout | undefined;
  const grace = request.killGraceMs ?? 2_000;
  const terminate = (reason: NonNullable<CommandExit["stoppedBy"]>, graceMs: number) => {
    if (stoppedBy || pid === undefined) return;
    stoppedBy = reason;
    if (reason === "timeout") timedOut = "soft";
    killGroup(pid, "SIGTERM");
    void options.cgroup?.signal("SIGTERM");
    killTimer = setTimeout(() => {
      if (reason === "timeout") timedOut = "hard";
      killGroup(pid, "SIGKILL");
      void options.cgroup?.killAll();
    }, graceMs);
  };
  const timer = setTimeout(() => terminate("timeout", grace), request.timeoutMs);
  const onAbort = () => terminate("abort", Math.min(grace, 500));
  request.signal?.addEventListener("abort", onAbort, { once: true });
  if (request.signal?.aborted) onAbort();

  // The main process is gone: whatever it left in its group (background jobs) goes too, so the pipes close.
  child.on("exit", () => {
    if (pid !== undefined) killGroup(pid, "SIGKILL");
    void options.cgroup?.killAll();
  });

  const done = (async (): Promise<CommandExit> => {
    const result = await child;
    clearTimeout(timer);
    clearTimeout(killTimer);
    request.signal?.removeEventListener("abort", onAbort);
    if (pid !== undefined) live.delete(pid);
    await options.cgroup?.remove();
    if (result.failed && result.exitCode === undefined && result.signal === undefined) {
      throw new BridleError("tool_infrastructure", `could not start ${file}: ${result.shortMessage}`);
    }
    return {
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      timedOut,
      stoppedBy,
      shell: SHELL,
      durationMs: Date.now() - started,
    };
  })();
  return {
    pid,
    done,
    stop: (reason = "stop") => {
      terminate(reason, Math.min(grace, 1_000));
      return done;
    },
  };
}

export function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
