import type { ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import type { Duplex } from "node:stream";
import { WARM_INIT_NAMES, warmRequest } from "./pid-namespace.js";
import { killGroup, SHELL, startGroup, supervise, untrack } from "./process-tree.js";
import type { CommandRequest, RunningCommand } from "./runner.js";
import type { RemoteChain, ShellSpawner } from "./spawner-client.js";

// The init reads its request a byte at a time (a read each): past this a cold start costs less.
const MAX_REQUEST_BYTES = 4096;
// Chains kept waiting: with two, the one a command takes was started a command earlier, so commands
// that follow each other at once (a scripted or a fast model) still find theirs ready.
const POOL = 2;

/** The argv of a chain whose init waits for its request on fd 3 (warmChainArgv): started here, or by the spawner. */
export interface WarmChains {
  readonly local: readonly string[];
  readonly spawned: readonly string[];
}

interface Slot {
  readonly envKey: string;
  readonly timer: NodeJS.Timeout;
  readonly chain: LocalChain | RemoteChain;
}

/** A chain started in this process, waiting for its command on fd 3 (the spawner's are RemoteChains). */
class LocalChain {
  onLost: (() => void) | undefined;
  readonly #child: ChildProcess;
  #state: "waiting" | "running" | "gone" = "waiting";

  private constructor(child: ChildProcess) {
    this.#child = child;
    // A waiting chain must not keep this process alive.
    child.unref();
    for (const stream of this.#streams()) refStream(stream, false);
    child.once("exit", () => this.#died());
    child.once("error", () => this.#died());
  }

  /** Start one; undefined when it could not be started. */
  static start(argv: readonly string[], env: Record<string, string>): LocalChain | undefined {
    const child = startGroup(argv, { cwd: "/", env, requestPipe: true });
    if (child.pid !== undefined) return new LocalChain(child);
    child.on("error", () => {});
    return undefined;
  }

  get waiting(): boolean {
    return this.#state === "waiting" && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Give it its request (the bytes its fd 3 reads); the command is then the returned process. */
  run(request: string): ChildProcess {
    this.#state = "running";
    const child = this.#child;
    child.removeAllListeners("exit");
    child.removeAllListeners("error");
    child.ref();
    for (const stream of this.#streams()) refStream(stream, true);
    const pipe = child.stdio[3] as Duplex | null;
    // EPIPE here means the chain died just now: the command ends as that death says, through "close".
    pipe?.on("error", () => {});
    pipe?.end(request);
    // What the init reports there (the status) is known here from "exit"; read on, so the pipe closes.
    pipe?.resume();
    return child;
  }

  discard(): void {
    if (this.#state !== "waiting") return;
    this.#state = "gone";
    const pid = this.#child.pid;
    if (pid !== undefined) {
      killGroup(pid, "SIGKILL");
      untrack(pid);
    }
    this.#child.on("error", () => {});
    for (const stream of this.#streams()) stream?.destroy();
  }

  #died(): void {
    if (this.#state !== "waiting") return;
    this.discard();
    this.onLost?.();
  }

  #streams() {
    return [this.#child.stdout, this.#child.stderr, this.#child.stdio[3]];
  }
}

/**
 * Commands started ahead of time, up to the point where they need to know what to run: the isolation
 * chain a runner puts in front of every command (pid namespace, fresh /proc, parent-death signal) costs
 * several process starts, and they happen while the model is thinking instead of between its answer and
 * the command's output. Every command still gets its own chain, made for it alone: a waiting chain is
 * used once, for a command with the same environment, and another is started right after. An idle one
 * is dropped after `idleMs`, and none keeps this process alive. With a spawner, the chains are
 * started by that small process, so this (large) one never forks on a command's path.
 */
export class WarmStart {
  readonly #argv: readonly string[];
  readonly #idleMs: number;
  readonly #spawner: ShellSpawner | undefined;
  readonly #slots: Slot[] = [];
  // Chains the spawner is starting: their answers.
  readonly #starting = new Set<Promise<void>>();
  #closed = false;

  constructor(chains: WarmChains, idleMs: number, spawner?: ShellSpawner) {
    this.#argv = spawner ? chains.spawned : chains.local;
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
   * Run `request` in a waiting chain made for this environment, and start another; undefined when the
   * caller must start the command itself. A working folder that is not a folder is left to the cold
   * start, which reports it as it always has.
   */
  async run(request: CommandRequest, env: Record<string, string>): Promise<RunningCommand | undefined> {
    for (const name in env) if (WARM_INIT_NAMES.has(name)) return undefined;
    const envKey = JSON.stringify(env);
    // A chain the spawner is starting is ready within milliseconds: sooner than a cold start.
    if (this.#slots.length === 0 && this.#starting.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, 1_000);
      });
      await Promise.race([...this.#starting, bound]);
      clearTimeout(timer);
    }
    const slot = this.#take(envKey);
    // The pool is topped up as this command starts: a chain costs a few process starts, and while the
    // command runs this process only waits for it. (Topping up once it had ended, while this process
    // builds the next model request, cost ~0.3 ms more harness time per shell turn in the overhead
    // benchmark.) Its end tops up again if a chain failed to start meanwhile.
    const fill = () => this.#fill(env, envKey);
    setImmediate(fill);
    if (!slot) return undefined;
    let folder = false;
    try {
      folder = statSync(request.cwd).isDirectory();
    } catch {
      // missing or unreadable: the cold start says so
    }
    if (!folder) {
      discard(slot);
      return undefined;
    }
    const running = supervise(slot.chain.run(warmRequest(request.cwd, request.command)), request, {
      started: Date.now(),
      file: SHELL,
    });
    void running.done.then(fill, fill);
    return running;
  }

  /** Stop the waiting chains and start none again; resolves once none is being started. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const slot of this.#slots.splice(0)) discard(slot);
    await Promise.all(this.#starting);
  }

  /** The first waiting chain made for this environment; the others made for another one go. */
  #take(envKey: string): Slot | undefined {
    while (this.#slots.length > 0) {
      const slot = this.#slots.shift() as Slot;
      clearTimeout(slot.timer);
      slot.chain.onLost = undefined;
      const usable = slot.envKey === envKey && slot.chain.waiting;
      if (usable) return slot;
      discard(slot);
    }
    return undefined;
  }

  /** Start chains until POOL wait or are being started. */
  #fill(env: Record<string, string>, envKey: string): void {
    while (!this.#closed && this.#slots.length + this.#starting.size < POOL) {
      if (!this.#prepare(env, envKey)) return;
    }
  }

  #prepare(env: Record<string, string>, envKey: string): boolean {
    if (this.#spawner) {
      const starting: Promise<void> = this.#spawner.prepare(this.#argv, env, envKey).then((remote) => {
        this.#starting.delete(starting);
        if (!remote) return;
        if (this.#closed || this.#slots.length >= POOL) {
          remote.discard();
          return;
        }
        const slot: Slot = { envKey, chain: remote, timer: this.#idle(() => slot) };
        remote.onLost = () => this.#lost(slot);
        this.#slots.push(slot);
      });
      this.#starting.add(starting);
      return true;
    }
    const chain = LocalChain.start(this.#argv, env);
    if (!chain) return false;
    const slot: Slot = { envKey, chain, timer: this.#idle(() => slot) };
    chain.onLost = () => this.#lost(slot);
    this.#slots.push(slot);
    return true;
  }

  #idle(slot: () => Slot): NodeJS.Timeout {
    const timer = setTimeout(() => this.#lost(slot()), this.#idleMs);
    timer.unref();
    return timer;
  }

  /** A waiting chain died, or waited too long. */
  #lost(slot: Slot): void {
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#slots.splice(index, 1);
    discard(slot);
  }
}

function discard(slot: Slot): void {
  clearTimeout(slot.timer);
  slot.chain.discard();
}

function refStream(stream: unknown, ref: boolean): void {
  const socket = stream as { ref?: () => void; unref?: () => void } | null | undefined;
  if (ref) socket?.ref?.();
  else socket?.unref?.();
}
