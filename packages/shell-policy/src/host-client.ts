import { type ChildProcess, fork } from "node:child_process";
import { builtEntry } from "./built-entry.js";
import type { HostReply, HostRequest } from "./host-protocol.js";
import type { PolicyResult } from "./types.js";

// A check that takes this long means the policy process is stuck; the caller asks instead.
const REPLY_TIMEOUT_MS = 30_000;

/**
 * The built policy process: beside the bundle in dist/, or dist/ of this package when running from
 * source (tests run in place, so they reach it only when they ask for a policy process explicitly).
 */
function hostEntry(): string {
  const entry = builtEntry("policy-host.js");
  if (entry) return entry;
  throw new Error("the policy process (dist/policy-host.js) is missing; build @bridle/shell-policy");
}

interface Pending {
  readonly resolve: (result: PolicyResult) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * One long-lived policy process per parent, started on the first check. It never keeps the parent
 * alive while idle, dies with it, and is started again after a crash; a check in flight when it dies
 * fails (and the policy asks).
 */
export class PolicyHost {
  #child: ChildProcess | undefined;
  readonly #pending = new Map<number, Pending>();
  #next = 1;

  check(request: Omit<HostRequest, "id">): Promise<PolicyResult> {
    const child = this.#child ?? this.#start();
    const id = this.#next++;
    return new Promise<PolicyResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        this.#idle();
        reject(new Error(`the policy process did not answer within ${REPLY_TIMEOUT_MS / 1000} s`));
      }, REPLY_TIMEOUT_MS);
      timer.unref();
      this.#pending.set(id, { resolve, reject, timer });
      // While a check is out, the parent must not exit under it.
      child.channel?.ref();
      child.send({ ...request, id } satisfies HostRequest, (error) => {
        if (error) this.#settle(id, { id, error: `could not reach the policy process: ${error.message}` });
      });
    });
  }

  /** The policy process's pid, while one runs (tests and diagnostics). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  #start(): ChildProcess {
    const stderr: string[] = [];
    const child = fork(hostEntry(), [], {
      execArgv: ["--liftoff-only", "--optimize-for-size"],
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      // The policy reads files and nothing else: it gets no API keys or other secrets of the parent.
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    });
    // Neither the pipe nor the channel may keep the parent alive once it has nothing else to do.
    (child.stderr as { unref?: () => void } | null)?.unref?.();
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.join("").length < 4096) stderr.push(chunk);
    });
    child.on("message", (reply: HostReply) => this.#settle(reply.id, reply));
    const gone = (why: string) => {
      if (this.#child !== child) return;
      this.#child = undefined;
      const detail = stderr.join("").trim().slice(0, 500);
      for (const id of [...this.#pending.keys()])
        this.#settle(id, { id, error: `the policy process ${why}${detail ? `: ${detail}` : ""}` });
    };
    child.on("exit", (code, signal) => gone(`exited (${signal ?? `code ${code}`})`));
    child.on("error", (error) => gone(`failed (${error.message})`));
    child.unref();
    this.#child = child;
    this.#idle();
    return child;
  }

  #settle(id: number, reply: HostReply): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    this.#idle();
    if ("result" in reply) pending.resolve(reply.result);
    else pending.reject(new Error(reply.error));
  }

  #idle(): void {
    if (this.#pending.size === 0) this.#child?.channel?.unref();
  }
}

let shared: PolicyHost | undefined;

/** The process-wide policy host. */
export function policyHost(): PolicyHost {
  shared ??= new PolicyHost();
  return shared;
}
