// The spawner process (see spawner-client.ts): it starts the agent's warm chains so that the agent, a
// large process, never forks on a command's path. It hands the agent the chain's pipes (the agent then
// reads and writes them itself) and reports how each chain ended. It holds no secret (its own
// environment is PATH alone) and exits, killing its chains, when the agent goes. It runs in a pid
// namespace of its own, whose end ends every chain; its /proc is still the agent's.
import { spawn } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import type { Socket } from "node:net";
import type { SpawnerReply, SpawnerRequest } from "./spawner-protocol.js";

// The argv and environment of the last prepare: a prepare that repeats them leaves them out.
const last: { argv: readonly string[]; env: Record<string, string> } = { argv: [], env: {} };

// Chains started and not yet ended, by request id: their process group ids, as this process numbers them.
const chains = new Map<number, number>();

// This process as /proc (the agent's) numbers it.
const self = (() => {
  try {
    return readlinkSync("/proc/self");
  } catch {
    return undefined;
  }
})();

/**
 * The number the agent knows a child of this process by: /proc lists this process's children in the
 * agent's numbering, and each one's NSpid line ends with its number here. Undefined when /proc does
 * not tell (the agent must then not be given a number it would signal the wrong process with); null
 * when it never will (no /proc/PID/task/TID/children in this kernel).
 */
function agentPid(pid: number): number | undefined | null {
  if (self === undefined) return null;
  let children: string[];
  try {
    children = readFileSync(`/proc/${self}/task/${self}/children`, "latin1").trim().split(" ");
  } catch {
    return null;
  }
  for (const child of children) {
    try {
      const numbers = /^NSpid:\t(.*)$/m
        .exec(readFileSync(`/proc/${child}/status`, "latin1"))?.[1]
        ?.split("\t");
      if (numbers && numbers[0] === child && Number(numbers[numbers.length - 1]) === pid)
        return Number(child);
    } catch {
      // gone already
    }
  }
  return undefined;
}

// process-tree.ts has the same few lines; importing them would bundle @bridle/core into this process.
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

function send(reply: SpawnerReply, handle?: Socket): void {
  if (process.connected) process.send?.(reply, handle);
}

function prepare(id: number, argv: readonly string[], env: Record<string, string>): void {
  const [file = "", ...args] = argv;
  try {
    const child = spawn(file, args, {
      cwd: "/",
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    const pid = child.pid;
    if (pid === undefined) {
      child.once("error", (error) => send({ type: "failed", id, error: error.message }));
      return;
    }
    const known = agentPid(pid);
    if (known === undefined || known === null) {
      killGroup(pid);
      child.on("error", () => {});
      for (const stream of child.stdio) stream?.destroy();
      const error = "the chain's number in the agent's /proc could not be found";
      send({ type: "failed", id, error, ...(known === null ? { always: true } : {}) });
      return;
    }
    chains.set(id, pid);
    child.on("error", () => {});
    // The command's main process is gone: what it left in its group goes too, so the pipes close.
    child.on("exit", (code, signal) => {
      killGroup(pid);
      chains.delete(id);
      send({ type: "exit", id, code, signal });
    });
    // Each pipe is passed on and closed here: the agent holds the only copy.
    send({ type: "pipe", id, pipe: "stdout" }, child.stdout as Socket);
    send({ type: "pipe", id, pipe: "stderr" }, child.stderr as Socket);
    send({ type: "pipe", id, pipe: "request" }, child.stdio[3] as Socket);
    send({ type: "ready", id, pid: known });
  } catch (error) {
    send({ type: "failed", id, error: error instanceof Error ? error.message : String(error) });
  }
}

process.on("message", (message: SpawnerRequest) => {
  if (message.type === "prepare") {
    last.argv = message.argv ?? last.argv;
    last.env = message.env ?? last.env;
    prepare(message.id, last.argv, last.env);
  } else {
    const pid = chains.get(message.id);
    if (pid !== undefined) killGroup(pid);
  }
});

function leave(): never {
  for (const pid of chains.values()) killGroup(pid);
  process.exit(0);
}

// Should the agent be gone without the channel saying so, setpriv's parent-death signal ends this
// namespace's init, and the kernel every process in it.
process.on("disconnect", leave);
