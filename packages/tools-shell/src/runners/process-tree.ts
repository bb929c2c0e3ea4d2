import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { BridleError } from "@bridle/core";
import { shellQuote } from "@bridle/core/node";
import type { CommandCgroup } from "../sandbox/cgroups.js";
import { commandEnv, type SandboxPolicy } from "../sandbox/policy.js";
import type { CommandExit, CommandRequest, RunningCommand } from "./runner.js";
import type { RemoteChild } from "./spawner-client.js";

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
  for (const file of options.cgroup?.procsFiles ?? [])
    prelude.push(`echo $$ > ${shellQuote(file)} || exit 125`);
  for (const limit of options.ulimits ?? []) prelude.push(`ulimit ${limit} || exit 125`);
  const argv =
    prelude.length > 0
      ? ["/bin/sh", "-c", `${prelude.join("\n")}\nexec "$@"`, "sh", ...options.argv]
      : [...options.argv];
  const child = startGroup(argv, { cwd: request.cwd, env: commandEnv(policy) });
  return supervise(child, request, {
    started,
    file: argv[0] ?? "",
    ...(options.cgroup ? { cgroup: options.cgroup } : {}),
  });
}

/**
 * Spawn argv as the leader of a new process group with exactly `env`, stdin closed, stdout and stderr
 * piped; `requestPipe` adds a pipe on fd 3 (how a warm start receives its command). It is tracked, so
 * it is killed if this process exits first.
 */
export function startGroup(
  argv: readonly string[],
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly requestPipe?: boolean },
): ChildProcess {
  const [file = "", ...args] = argv;
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: options.requestPipe ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
  });
  if (child.pid !== undefined) live.add(child.pid);
  return child;
}

/** Forget a group this process started and has already ended (a warm start let go unused). */
export function untrack(pid: number): void {
  live.delete(pid);
}

/**
 * Watch a started command: its output goes to `request.onOutput`, its timeout and abort signal stop the
 * whole group (SIGTERM, then SIGKILL after the grace period), and its end kills what it left behind.
 */
export function supervise(
  child: ChildProcess | RemoteChild,
  request: CommandRequest,
  options: { readonly started: number; readonly file: string; readonly cgroup?: CommandCgroup },
): RunningCommand {
  const pid = child.pid;
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

  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once("error", (error) => {
      // A process that started and then failed to be signalled still ends with "close".
      if (pid === undefined) reject(error);
    });
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  const done = (async (): Promise<CommandExit> => {
    try {
      const { code, signal } = await ended;
      return {
        exitCode: code,
        signal,
        timedOut,
        stoppedBy,
        shell: SHELL,
        durationMs: Date.now() - options.started,
      };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new BridleError("tool_infrastructure", `could not start ${options.file}: ${message}`);
    } finally {
      clearTimeout(timer);
      clearTimeout(killTimer);
      request.signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) live.delete(pid);
      await options.cgroup?.remove();
    }
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
