import { type ChildProcess, fork } from "node:child_process";
import { EventEmitter } from "node:events";
import { Socket } from "node:net";
import { isAbsolute } from "node:path";
import { builtEntry } from "../built-entry.js";
import { spawnerNamespacePrefix, systemProgram } from "./pid-namespace.js";
import { killGroup } from "./process-tree.js";
import type { SpawnerReply, SpawnerRequest } from "./spawner-protocol.js";

/**
 * A started command as `supervise` watches it: output on stdout/stderr, "exit" once it has ended, and
 * "close" once its output pipes have closed too. It has ended when the spawner reports its first
 * process reaped or, sooner, when the namespace's init has written the command's status on the request
 * pipe and every pipe has closed: the chain's first process holds them all until it exits, and it
 * exits only after the init, whose end ends every process in the namespace.
 */
export class RemoteChild extends EventEmitter {
  #exit: [number | null, NodeJS.Signals | null] | undefined;
  #open = 3;
  #status = "";

  constructor(
    readonly pid: number,
    readonly stdout: Socket,
    readonly stderr: Socket,
    request: Socket,
  ) {
    super();
    for (const stream of [stdout, stderr, request]) {
      stream.on("error", () => {});
      stream.once("close", () => {
        this.#open -= 1;
        this.#closed();
      });
    }
    request.setEncoding("latin1");
    request.on("data", (chunk: string) => {
      if (this.#status.length < 16) this.#status += chunk;
    });
  }

  /** The spawner reported the end (or died, taking the chain with it). */
  ended(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#exit) return;
    this.#exit = [code, signal];
    this.emit("exit", code, signal);
    this.#closed();
  }

  #closed(): void {
    if (this.#open !== 0) return;
    if (!this.#exit) {
      const reported = /^(\d{1,3})\n$/.exec(this.#status);
      if (!reported) return;
      this.ended(Number(reported[1]), null);
      return;
    }
    this.emit("close", ...this.#exit);
  }
}

/** A chain the spawner started, waiting for its command. */
export interface RemoteChain {
  readonly pid: number;
  /** False once it died or was used or discarded. */
  readonly waiting: boolean;
  /** Called when it dies while waiting. */
  onLost?: (() => void) | undefined;
  /** Give it its request (the bytes its fd 3 reads); the command's output and end come on the result. */
  run(request: string): RemoteChild;
  discard(): void;
}

interface Entry {
  state: "preparing" | "waiting" | "running" | "gone";
  pid: number;
  resolve?: (chain: RemoteChain | undefined) => void;
  pipes: Partial<Record<"stdout" | "stderr" | "request", Socket>>;
  chain?: RemoteChain;
  child?: RemoteChild;
}

/**
 * One small long-lived process per agent that starts the warm chains (a fork of a large process costs
 * its main thread milliseconds; this one is small and on another core) and hands over their pipes, so
 * a command's output comes straight here. It never keeps the agent alive while no command runs, dies
 * with it, and is started again after a crash: commands running then end as killed.
 */
export class ShellSpawner {
  readonly #entry: string;
  #child: ChildProcess | undefined;
  #next = 1;
  readonly #entries = new Map<number, Entry>();
  // Chains being started or running: while there are any, the channel keeps this process alive.
  #pending = 0;
  // It said every chain would fail (its /proc cannot number them): commands then start cold.
  #unusable = false;
  // What the running spawner was last sent (it was started afresh when these are undefined).
  #lastArgv: readonly string[] | undefined;
  #lastEnv: string | undefined;

  constructor(entry: string) {
    this.#entry = entry;
  }

  /** Start a chain; undefined when the spawner cannot (the caller starts commands itself). */
  prepare(
    argv: readonly string[],
    env: Record<string, string>,
    envKey = JSON.stringify(env),
  ): Promise<RemoteChain | undefined> {
    if (this.#unusable) return Promise.resolve(undefined);
    const child = this.#child ?? this.#start();
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#entries.set(id, { state: "preparing", pid: 0, resolve, pipes: {} });
      this.#busy(+1);
      // The spawner keeps the last argv and environment: most chains repeat both.
      const sameArgv = this.#lastArgv === argv;
      const sameEnv = this.#lastEnv === envKey;
      this.#lastArgv = argv;
      this.#lastEnv = envKey;
      this.#send(child, {
        type: "prepare",
        id,
        ...(sameArgv ? {} : { argv: [...argv] }),
        ...(sameEnv ? {} : { env }),
      });
    });
  }

  #send(child: ChildProcess, request: SpawnerRequest): void {
    if (!child.connected) return;
    child.send(request, (error) => {
      if (error) this.#lose(child);
    });
  }

  #start(): ChildProcess {
    // It runs as pid 2 of a pid namespace of its own, behind setpriv, which ties its life to this process
    // even through a SIGKILL (the channel's end alone has been seen to leave it running): every chain it
    // starts is in that namespace and ends with it, so the chains need no setpriv of their own. The chain
    // keeps the environment and the channel's descriptor.
    const [execPath, ...prefix] = spawnerNamespacePrefix();
    const child = fork(this.#entry, [], {
      execPath,
      execArgv: [...prefix, process.execPath, "--optimize-for-size"],
      serialization: "advanced",
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      // It starts commands with the environment each request gives: it needs none of the agent's.
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    child.on("message", (reply: SpawnerReply, handle: unknown) => this.#reply(child, reply, handle));
    child.on("exit", () => this.#lose(child));
    child.on("error", () => this.#lose(child));
    child.unref();
    child.channel?.unref();
    this.#child = child;
    this.#lastArgv = undefined;
    this.#lastEnv = undefined;
    return child;
  }

  #reply(child: ChildProcess, reply: SpawnerReply, handle: unknown): void {
    const entry = this.#entries.get(reply.id);
    if (!entry) {
      if (handle instanceof Socket) handle.destroy();
      return;
    }
    switch (reply.type) {
      case "pipe":
        if (handle instanceof Socket) {
          // A waiting chain's pipes must not keep this process alive.
          handle.unref();
          entry.pipes[reply.pipe] = handle;
        }
        return;
      case "ready": {
        this.#busy(-1);
        if (!entry.pipes.stdout || !entry.pipes.stderr || !entry.pipes.request) {
          this.#entries.delete(reply.id);
          entry.state = "gone";
          destroyPipes(entry);
          this.#send(child, { type: "discard", id: reply.id });
          entry.resolve?.(undefined);
          return;
        }
        entry.state = "waiting";
        entry.pid = reply.pid;
        entry.chain = this.#chain(child, reply.id, entry);
        entry.resolve?.(entry.chain);
        return;
      }
      case "failed":
        if (reply.always) this.#unusable = true;
        this.#busy(-1);
        this.#entries.delete(reply.id);
        destroyPipes(entry);
        entry.resolve?.(undefined);
        return;
      case "exit":
        this.#end(reply.id, entry, reply.code, reply.signal);
        return;
    }
  }

  #chain(child: ChildProcess, id: number, entry: Entry): RemoteChain {
    const spawner = this;
    return {
      pid: entry.pid,
      get waiting() {
        return entry.state === "waiting";
      },
      run(request: string): RemoteChild {
        const { stdout, stderr, request: pipe } = entry.pipes as Required<Entry["pipes"]>;
        const started = new RemoteChild(entry.pid, stdout, stderr, pipe);
        entry.state = "running";
        entry.child = started;
        spawner.#busy(+1);
        for (const socket of [stdout, stderr, pipe]) socket.ref();
        // EPIPE here means the chain died just now: the command ends as that death says.
        pipe.on("error", () => {});
        pipe.end(request);
        return started;
      },
      discard() {
        if (entry.state !== "waiting") return;
        entry.state = "gone";
        spawner.#entries.delete(id);
        destroyPipes(entry);
        spawner.#send(child, { type: "discard", id });
      },
    };
  }

  #end(id: number, entry: Entry, code: number | null, signal: NodeJS.Signals | null): void {
    this.#entries.delete(id);
    const was = entry.state;
    entry.state = "gone";
    if (was === "preparing") {
      this.#busy(-1);
      destroyPipes(entry);
      entry.resolve?.(undefined);
    }
    if (was === "waiting") {
      destroyPipes(entry);
      entry.chain?.onLost?.();
    }
    if (was === "running" && entry.child) {
      this.#busy(-1);
      entry.child.ended(code, signal);
    }
  }

  #busy(change: number): void {
    this.#pending += change;
    if (this.#pending > 0) this.#child?.channel?.ref();
    else this.#child?.channel?.unref();
  }

  /** The spawner died: every chain in it died too (they have a parent-death signal, or are killed here). */
  #lose(child: ChildProcess): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    for (const [id, entry] of [...this.#entries]) {
      if (entry.pid > 0) killGroup(entry.pid, "SIGKILL");
      this.#end(id, entry, null, "SIGKILL");
    }
  }
}

function destroyPipes(entry: Entry): void {
  for (const socket of Object.values(entry.pipes)) socket?.destroy();
}

let shared: ShellSpawner | null | undefined;

/** The process-wide spawner, or undefined when its entry was not built. */
export function shellSpawner(): ShellSpawner | undefined {
  if (shared === undefined) {
    // Beside the bundle in dist/, or dist/ of this package from source; not built, the runner starts
    // its chains itself.
    const entry = builtEntry("shell-spawner.js");
    // Its namespace needs setpriv and unshare from the system's folders (a chain it starts has no setpriv).
    const chain = ["setpriv", "unshare"].every((name) => isAbsolute(systemProgram(name)));
    shared = entry && chain ? new ShellSpawner(entry) : null;
  }
  return shared ?? undefined;
}
