import type { ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import { killGroup, SHELL, startGroup, supervise, untrack } from "./process-tree.js";
import type { CommandRequest, RunningCommand } from "./runner.js";
import type { RemoteChain, ShellSpawner } from "./spawner-client.js";

/**
 * What a warm start runs at the end of its isolation chain: a bash that waits for its command on fd 3
 * (the working folder and the command, each NUL-terminated), closes fd 3, moves there and becomes
 * `bash -c COMMAND`. Its own variables are not exported, so the command's environment is the one the
 * chain was started with, as for a cold start; `cd` sets OLDPWD, which a cold start does not have, so it
 * is put back as it was.
 */
const BOOT = [
  "IFS= read -r -d '' dir <&3 && IFS= read -r -d '' cmd <&3 || exit 125",
  "exec 3<&-",
  'if [ -v OLDPWD ]; then old=$OLDPWD; cd -- "$dir" || exit 125; OLDPWD=$old; unset old',
  'else cd -- "$dir" || exit 125; unset OLDPWD; fi',
  `exec ${SHELL} -c "$cmd"`,
].join("\n");

// bash reads a pipe a byte at a time (about 0.25 µs each): past this a cold start costs less.
const MAX_REQUEST_BYTES = 4096;

interface Slot {
  readonly envKey: string;
  readonly timer: NodeJS.Timeout;
  /** The chain started in this process, or by the spawner process. */
  readonly local?: ChildProcess;
  readonly remote?: RemoteChain;
}

/**
 * One command started ahead of time, up to the point where it needs to know what to run: the isolation
 * chain a runner puts in front of every command (pid namespace, fresh /proc, parent-death signal) costs
 * several process starts, and they happen while the model is thinking instead of between its answer and
 * the command's output. Every command still gets its own chain, made for it alone: a warm start is used
 * once, for the next command with the same environment, and a new one is started right after. An idle
 * one is dropped after `idleMs`, and it never keeps this process alive. With a spawner, the chains are
 * started by that small process, so this (large) one never forks on a command's path.
 */
export class WarmStart {
  readonly #argv: readonly string[];
  readonly #idleMs: number;
  readonly #spawner: ShellSpawner | undefined;
  #slot: Slot | undefined;
  #preparing: Promise<void> | undefined;
  // The spawner's answer for the chain being started, if any (what `close` waits for).
  #starting: Promise<void> | undefined;
  #closed = false;

  /** `prefix`: the isolation chain's argv, which ends by exec'ing its arguments. */
  constructor(prefix: readonly string[], idleMs: number, spawner?: ShellSpawner) {
    this.#argv = [...prefix, SHELL, "-c", BOOT];
    this.#idleMs = idleMs;
    this.#spawner = spawner;
  }

  /** Whether a warm start can run this command (bash is the shell, the request is short and plain). */
  static fits(request: CommandRequest): boolean {
    if (SHELL !== "/bin/bash") return false;
    if (request.command.includes("\0") || request.cwd.includes("\0")) return false;
    return Buffer.byteLength(request.command) + Buffer.byteLength(request.cwd) + 2 <= MAX_REQUEST_BYTES;
  }

  /**
   * Run `request` in the warm start when there is one for this environment, and start the next one;
   * undefined when the caller must start the command itself. A working folder that is not a folder is
   * left to the cold start, which reports it as it always has.
   */
  async run(request: CommandRequest, env: Record<string, string>): Promise<RunningCommand | undefined> {
    const envKey = JSON.stringify(env);
    // A chain the spawner is starting is ready within milliseconds: sooner than a cold start.
    if (!this.#slot && this.#preparing) await this.#preparing;
    const slot = this.#take(envKey);
    // The next chain. Here, once this command is on its way (a fork blocks this thread for a moment); in
    // the spawner, once this command has ended, so that starting it does not compete with the command.
    const next = () => this.#prepare(env, envKey);
    if (!this.#spawner || !slot) setImmediate(next);
    if (!slot) return undefined;
    let folder = false;
    try {
      folder = statSync(request.cwd).isDirectory();
    } catch {
      // missing or unreadable: the cold start says so
    }
    if (!folder) {
      discard(slot);
      if (this.#spawner) setImmediate(next);
      return undefined;
    }
    const bytes = `${request.cwd}\0${request.command}\0`;
    if (slot.remote) {
      const running = supervise(slot.remote.run(bytes), request, { started: Date.now(), file: SHELL });
      void running.done.then(next, next);
      return running;
    }
    const child = slot.local as ChildProcess;
    child.ref();
    for (const stream of [child.stdout, child.stderr, child.stdio[3]]) refStream(stream, true);
    const pipe = child.stdio[3];
    // EPIPE here means the chain died just now: the command ends as that death says, through "close".
    pipe?.on("error", () => {});
    if (pipe && "end" in pipe) pipe.end(bytes);
    return supervise(child, request, { started: Date.now(), file: SHELL });
  }

  /** Stop the warm start, if any (a runner that will run nothing more); resolves once none is starting. */
  async close(): Promise<void> {
    this.#closed = true;
    const slot = this.#slot;
    this.#slot = undefined;
    if (slot) discard(slot);
    await this.#starting;
  }

  #take(envKey: string): Slot | undefined {
    const slot = this.#slot;
    if (!slot) return undefined;
    this.#slot = undefined;
    clearTimeout(slot.timer);
    let usable = slot.envKey === envKey;
    if (slot.remote) {
      slot.remote.onLost = undefined;
      usable &&= slot.remote.waiting;
    } else if (slot.local) {
      slot.local.removeAllListeners("exit");
      slot.local.removeAllListeners("error");
      usable &&= slot.local.exitCode === null && slot.local.signalCode === null;
    }
    if (!usable) {
      discard(slot);
      return undefined;
    }
    return slot;
  }

  #prepare(env: Record<string, string>, envKey: string): void {
    if (this.#slot || this.#preparing || this.#closed) return;
    if (this.#spawner) {
      const preparing = this.#spawner.prepare(this.#argv, env).then((remote) => {
        this.#preparing = undefined;
        if (!remote) return;
        if (this.#slot || this.#closed) {
          remote.discard();
          return;
        }
        const slot: Slot = { envKey, remote, timer: this.#idle(() => slot) };
        remote.onLost = () => this.#lost(slot);
        this.#slot = slot;
      });
      this.#starting = preparing;
      // Waited for by a command at most this long; then it starts cold.
      this.#preparing = Promise.race([
        preparing,
        new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref()),
      ]);
      return;
    }
    const child = startGroup(this.#argv, { cwd: "/", env, requestPipe: true });
    if (child.pid === undefined) {
      child.on("error", () => {});
      return;
    }
    child.unref();
    for (const stream of [child.stdout, child.stderr, child.stdio[3]]) refStream(stream, false);
    const slot: Slot = { envKey, local: child, timer: this.#idle(() => slot) };
    child.once("exit", () => this.#lost(slot));
    child.once("error", () => this.#lost(slot));
    this.#slot = slot;
  }

  #idle(slot: () => Slot): NodeJS.Timeout {
    const timer = setTimeout(() => this.#lost(slot()), this.#idleMs);
    timer.unref();
    return timer;
  }

  /** The waiting chain died, or waited too long. */
  #lost(slot: Slot): void {
    if (this.#slot !== slot) return;
    this.#slot = undefined;
    discard(slot);
  }
}

function discard(slot: Slot): void {
  clearTimeout(slot.timer);
  if (slot.remote) {
    slot.remote.discard();
    return;
  }
  const child = slot.local as ChildProcess;
  const pid = child.pid;
  if (pid !== undefined) {
    killGroup(pid, "SIGKILL");
    untrack(pid);
  }
  child.on("error", () => {});
  for (const stream of [child.stdout, child.stderr, child.stdio[3]]) stream?.destroy();
}

function refStream(stream: unknown, ref: boolean): void {
  const socket = stream as { ref?: () => void; unref?: () => void } | null | undefined;
  if (ref) socket?.ref?.();
  else socket?.unref?.();
}
