import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BridleError } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalRunner, type LocalRunnerOptions, sandboxPolicy } from "../src/index.js";
import type { SandboxPolicy } from "../src/sandbox/policy.js";
import { readUntil, startAgent } from "./agent-process.js";
import { processesWith, waitFor } from "./helpers.js";

// A LocalRunner starts the next command's isolation chain ahead of time. These tests hold it to what a
// cold start gives: the same output, environment, folder, exit status and process view for a table of
// commands, the same errors, the same lifetime rules, and a chain used for one command only.

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-warm-"));
});
afterAll(() => cleanup());

const pidNamespace = await new LocalRunner().probe();

interface Ran {
  readonly pid: number | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: false | "soft" | "hard";
}

async function run(
  runner: LocalRunner,
  command: string,
  options: { cwd?: string; timeoutMs?: number; signal?: AbortSignal; policy?: SandboxPolicy } = {},
): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  const running = await runner.start(
    {
      command,
      cwd: options.cwd ?? dir,
      writableRoots: [dir],
      timeoutMs: options.timeoutMs ?? 30_000,
      killGraceMs: 200,
      ...(options.signal ? { signal: options.signal } : {}),
      onOutput: (stream, chunk) => {
        if (stream === "stdout") stdout += Buffer.from(chunk).toString("utf8");
        else stderr += Buffer.from(chunk).toString("utf8");
      },
    },
    options.policy ?? sandboxPolicy(),
  );
  const exit = await running.done;
  return {
    pid: running.pid,
    stdout,
    stderr,
    exitCode: exit.exitCode,
    signal: exit.signal,
    timedOut: exit.timedOut,
  };
}

/** The parent of a process, or 0 once it is gone. */
function parentOf(pid: number): number {
  try {
    return Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Whether this test process started `pid` (directly, or through the spawner or a chain). */
function ours(pid: number): boolean {
  for (let at = parentOf(pid), depth = 0; at > 1 && depth < 6; at = parentOf(at), depth++)
    if (at === process.pid) return true;
  return false;
}

/**
 * Pids of this process's chains waiting for a command: their processes' command lines hold the warm
 * start's script (other test files, run at the same time, have chains of their own).
 */
function waitingChains(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "latin1");
      if (cmdline.includes("read -r _b_dn _b_cn <&3") && !cmdline.includes("vitest") && ours(Number(entry)))
        found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** This process's spawner: the node process running dist/shell-spawner.js. */
function spawnerProcesses(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0");
      if (argv[0] === process.execPath && argv.some((word) => word.endsWith("shell-spawner.js")))
        if (ours(Number(entry))) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** Zombie children of any of `parents`. */
function zombiesOf(parents: ReadonlySet<number>): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After the command name in parentheses: state, then the parent's pid.
      const fields = readFileSync(`/proc/${entry}/stat`, "latin1")
        .replace(/^.*\) /s, "")
        .split(" ");
      if (fields[0] === "Z" && parents.has(Number(fields[1]))) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/**
 * A runner whose chains are ready: one command has run, and both chains started after it are waiting
 * (each is two processes by then: unshare and the namespace's init, reading fd 3).
 */
async function primedRunner(options: LocalRunnerOptions): Promise<LocalRunner> {
  const runner = new LocalRunner(options);
  const before = new Set(waitingChains());
  await run(runner, "true");
  expect(await waitFor(() => waitingChains().filter((pid) => !before.has(pid)).length >= 4)).toBe(true);
  return runner;
}

// What a command can observe of how it was started. `ps` columns that hold times or the chain's own
// script are left out; the rest must be identical.
const OBSERVED: Record<string, string> = {
  environment: "env | sort",
  folder: 'pwd; echo "$PWD"; cd ..; pwd; echo "$OLDPWD"',
  "old folder": "[ -v OLDPWD ] && echo set || echo unset",
  "shell name": 'echo "$0" "$BASH_VERSION" "$SHLVL"',
  "shell options": "echo $-; shopt | md5sum; set -o | md5sum",
  "open descriptors":
    "cd /proc/$$/fd && for fd in *; do echo \"$fd $(readlink $fd | sed 's/[0-9]*//g')\"; done",
  "standard input": 'read -r line; echo "read=$? line=$line"; readlink /proc/$$/fd/0',
  // The namespace's init and the command's shell (a pipeline's processes would race their own exec).
  "process view": "ps -o pid=,ppid=,comm= -p 1,2,3",
  "process group and session": "ps -o pgid=,sid= -p $$ | awk '{print ($1==$2)}'",
  "signal dispositions": "grep -E 'Sig(Ign|Blk|Cgt)' /proc/$$/status",
  limits: "ulimit -a",
  umask: "umask",
  "exit status": "exit 42",
  "killed by a signal": "kill -KILL $$",
  "stderr and stdout": "echo out; echo err >&2",
  quoting: `printf '%s\\n' "a b" 'c"d' $'e\\tf' "\\$HOME" '\\\\' "'" ; echo "multi
line"`,
  "unicode and NUL-free binary": "printf 'héllo \\xe2\\x9c\\x93 \\x01\\x7f\\n'",
  "a syntax error": "if then fi",
  "a missing program": "definitely-not-a-program-xyz",
  "a background job": "sleep 0.1 & wait; echo waited",
  "a heredoc": "cat <<'EOF'\n$not expanded\n  indented\nEOF",
  "leading dash": "-c",
};

// The chains start in the spawner process where the package is built (dist/shell-spawner.js), else in
// this process; both ways are tested. `./dev test` builds first.
const spawnerBuilt = existsSync(fileURLToPath(new URL("../dist/shell-spawner.js", import.meta.url)));
const modes = [
  { mode: "started in this process", spawner: false, skip: "" },
  {
    mode: "started by the spawner process",
    spawner: true,
    skip: spawnerBuilt || process.env.CI === "true" ? "" : "dist/shell-spawner.js is not built (pnpm build)",
  },
];

describe.each(modes)("LocalRunner warm start, chains $mode", ({ spawner, skip }) => {
  const why = !pidNamespace.available ? `no pid namespace: ${pidNamespace.reason}` : skip;
  const primed = (options: LocalRunnerOptions = {}) => primedRunner({ spawner, ...options });
  describe.skipIf(why !== "")(why ? `SKIPPED: ${why}` : "with the chain", () => {
    it.each(Object.entries(OBSERVED))("%s: the same as a cold start", async (_name, command) => {
      const cold = new LocalRunner({ warmStart: false });
      const warm = await primed();
      try {
        const chains = waitingChains();
        const a = await run(cold, command);
        const b = await run(warm, command);
        // The warm run used a chain that was waiting before it (its pid is the chain's group leader).
        expect(chains).toContain(b.pid);
        expect({ ...b, pid: 0 }).toEqual({ ...a, pid: 0 });
      } finally {
        await warm.close();
      }
    });

    it("the namespace's init adds nothing to the stderr of a command killed by a signal, cold or warm", async () => {
      const cold = new LocalRunner({ warmStart: false });
      const warm = await primed();
      try {
        for (let i = 0; i < 12; i++) {
          for (const runner of [cold, warm]) {
            const ran = await run(runner, i % 2 ? "kill -KILL $$" : "sleep 5 & kill -SEGV $$");
            expect(ran.stderr).toBe("");
          }
        }
      } finally {
        await warm.close();
      }
    });

    it("runs in a folder whose name needs quoting, like a cold start", async () => {
      const odd = join(dir, "a b\n'c\"$(x)");
      await mkdir(odd, { recursive: true });
      const cold = new LocalRunner({ warmStart: false });
      const warm = await primed();
      try {
        const a = await run(cold, "pwd; ls -a", { cwd: odd });
        const b = await run(warm, "pwd; ls -a", { cwd: odd });
        expect(b).toEqual({ ...a, pid: b.pid });
        expect(b.stdout.startsWith(`${odd}\n`)).toBe(true);
      } finally {
        await warm.close();
      }
    });

    it("a missing working folder fails as a cold start does, and the runner goes on", async () => {
      const gone = join(dir, "gone");
      const cold = new LocalRunner({ warmStart: false });
      const warm = await primed();
      try {
        const expected = await run(cold, "true", { cwd: gone }).catch((error: unknown) => error);
        const actual = await run(warm, "true", { cwd: gone }).catch((error: unknown) => error);
        expect(expected).toBeInstanceOf(BridleError);
        expect(actual).toBeInstanceOf(BridleError);
        expect((actual as BridleError).code).toBe((expected as BridleError).code);
        expect((await run(warm, "echo fine")).stdout).toBe("fine\n");
      } finally {
        await warm.close();
      }
    });

    it("each chain runs one command: a command cannot see the next one's chain, nor reach it", async () => {
      const warm = await primed();
      try {
        // While this command runs, the chain for the next one may be starting (it does, when this process
        // starts it); the command's own /proc shows only its namespace.
        const seen = await run(warm, "sleep 0.5; ps -e -o comm= | sort | uniq -c | sed 's/^ *//'");
        expect(seen.stdout).not.toMatch(/unshare|setpriv|node/);
        expect(await waitFor(() => waitingChains().length > 0)).toBe(true);
        // A command that leaves a process behind in its namespace does not share it with the next one.
        const first = await run(warm, "setsid sleep 30 >/dev/null 2>&1 & echo $!");
        const second = await run(warm, "ps -e -o pid=,comm= | grep -c sleep || true");
        expect(first.stdout.trim()).toMatch(/^\d+$/);
        expect(second.stdout.trim()).toBe("0");
      } finally {
        await warm.close();
      }
    });

    it("a warm-started command has ended only once its namespace is gone: nothing it left runs on", async () => {
      const warm = await primed();
      try {
        for (let i = 0; i < 6; i++) {
          const marker = `BRIDLE_WARM_${process.pid}_left_${i}`;
          // Detached, its own session, output elsewhere, a double fork: none holds the command's pipes.
          const ran = await run(
            warm,
            `export ${marker}=1; setsid sleep 30 >/dev/null 2>&1 < /dev/null &
            ( (sleep 30 >/dev/null 2>&1 &) ); exit ${40 + i}`,
          );
          expect(ran.exitCode).toBe(40 + i);
          // No waiting: the end of the run is the end of every process it started.
          expect(processesWith(marker)).toEqual([]);
        }
      } finally {
        await warm.close();
      }
    });

    it.skipIf(!spawner)(
      "a SIGKILL of the spawner ends every command it started, namespaces and all",
      async () => {
        const warm = await primed();
        try {
          const marker = `BRIDLE_WARM_${process.pid}_spawner_killed`;
          const running = await warm.start(
            {
              command: `export ${marker}=1; setsid sleep 30 >/dev/null 2>&1 & (sleep 30 &); sleep 30`,
              cwd: dir,
              writableRoots: [dir],
              timeoutMs: 30_000,
            },
            sandboxPolicy(),
          );
          expect(await waitFor(() => processesWith(marker).length >= 3)).toBe(true);
          const [spawnerPid] = spawnerProcesses();
          expect(spawnerPid).toBeDefined();
          process.kill(spawnerPid as number, "SIGKILL");
          const exit = await running.done;
          expect(exit.signal).toBe("SIGKILL");
          expect(await waitFor(() => processesWith(marker).length === 0)).toBe(true);
          // A spawner is started again for the next commands.
          expect((await run(warm, "echo again")).stdout).toBe("again\n");
        } finally {
          await warm.close();
        }
      },
    );

    it.skipIf(!spawner)("chains the spawner started and lost leave no zombie behind", async () => {
      const warm = await primed();
      const name = "BRIDLE_WARM_ZOMBIE_VALUE";
      try {
        const policy = sandboxPolicy({ allowed_env: ["PATH", name] });
        // Each change of environment kills the waiting chains (their unshare and init at once).
        for (let i = 0; i < 8; i++) {
          process.env[name] = String(i);
          expect((await run(warm, `echo "$${name}"`, { policy })).stdout).toBe(`${i}\n`);
        }
        const parents = new Set(spawnerProcesses().flatMap((pid) => [pid, parentOf(pid)]));
        expect(parents.size).toBeGreaterThan(0);
        expect(await waitFor(() => zombiesOf(parents).length === 0)).toBe(true);
      } finally {
        delete process.env[name];
        await warm.close();
      }
    });

    it("a timeout and an abort stop a warm-started command's whole tree", async () => {
      const warm = await primed();
      try {
        const marker = `BRIDLE_WARM_${process.pid}_timeout`;
        const timed = await run(warm, `export ${marker}=1; trap '' TERM; (sleep 30 &); sleep 30`, {
          timeoutMs: 300,
        });
        expect(timed.timedOut).toBe("hard");
        expect(await waitFor(() => processesWith(marker).length === 0)).toBe(true);

        const abortMarker = `BRIDLE_WARM_${process.pid}_abort`;
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 300);
        const aborted = await run(warm, `export ${abortMarker}=1; setsid sleep 30 & sleep 30`, {
          signal: controller.signal,
        });
        expect(aborted.exitCode === null || aborted.signal !== null || aborted.exitCode !== 0).toBe(true);
        expect(await waitFor(() => processesWith(abortMarker).length === 0)).toBe(true);
      } finally {
        await warm.close();
      }
    });

    it("a change of environment discards the waiting chain: the command sees the new one", async () => {
      const warm = await primed();
      const name = "BRIDLE_WARM_TEST_VALUE";
      try {
        process.env[name] = "first";
        const policy = sandboxPolicy({ allowed_env: ["PATH", name] });
        expect((await run(warm, `echo "$${name}"`, { policy })).stdout).toBe("first\n");
        process.env[name] = "second";
        expect((await run(warm, `echo "$${name}"`, { policy })).stdout).toBe("second\n");
        expect((await run(warm, `[ -v ${name} ] && echo set || echo unset`)).stdout).toBe("unset\n");
      } finally {
        delete process.env[name];
        await warm.close();
      }
    });

    it("commands too long for a warm start, and many at once, give exact output", async () => {
      const warm = await primed();
      try {
        const long = `printf '%s' '${"x".repeat(10_000)}' | wc -c`;
        expect((await run(warm, long)).stdout.trim()).toBe("10000");
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => run(warm, `echo ${i}; exit ${i}`)),
        );
        expect(results.map((r) => [r.stdout, r.exitCode])).toEqual(
          Array.from({ length: 8 }, (_, i) => [`${i}\n`, i]),
        );
      } finally {
        await warm.close();
      }
    });

    it("an idle chain is stopped after warmIdleMs, and close() stops it at once", async () => {
      const before = new Set(waitingChains());
      const idle = await primed({ warmIdleMs: 300 });
      const fresh = () => waitingChains().filter((pid) => !before.has(pid));
      expect(await waitFor(() => fresh().length === 0)).toBe(true);
      expect((await run(idle, "echo again")).stdout).toBe("again\n");
      await idle.close();

      const closing = await primed();
      expect(fresh().length).toBeGreaterThan(0);
      await closing.close();
      expect(await waitFor(() => fresh().length === 0)).toBe(true);
    });

    it("a waiting chain neither keeps the agent alive nor outlives it", async () => {
      const before = new Set(waitingChains());
      const agent = startAgent({
        runner: "local",
        command: "echo done",
        cwd: dir,
        env: { PATH: process.env.PATH },
      });
      const { stdout } = await readUntil(agent, /exit \{/);
      expect(stdout).toContain("done");
      const exited = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 15_000);
        agent.once("close", () => {
          clearTimeout(timer);
          resolve(true);
        });
        if (agent.exitCode !== null) resolve(true);
      });
      if (!exited) agent.kill("SIGKILL");
      expect(exited).toBe(true);
      expect(await waitFor(() => waitingChains().every((pid) => before.has(pid)))).toBe(true);
    });

    it("a SIGKILL of the agent while a chain waits leaves no process behind", async () => {
      const before = new Set(waitingChains());
      const agent = startAgent({
        runner: "local",
        command: "echo ready; sleep 300",
        cwd: dir,
        env: { PATH: process.env.PATH },
        spawner,
      });
      await readUntil(agent, /ready/);
      // The chain for the next command starts right after this one.
      expect(await waitFor(() => waitingChains().some((pid) => !before.has(pid)))).toBe(true);
      agent.kill("SIGKILL");
      expect(await waitFor(() => waitingChains().every((pid) => before.has(pid)))).toBe(true);
    });

    it("a SIGKILL of the agent ends a warm-started command's whole tree, setsid and double forks included", async () => {
      const marker = `BRIDLE_WARM_${process.pid}_agent_killed_${spawner}`;
      const agent = startAgent({
        runner: "local",
        command: `export ${marker}=1; setsid sleep 300 & (sleep 300 &); sleep 300 & echo ready; sleep 300`,
        cwd: dir,
        env: { PATH: process.env.PATH },
        spawner,
        warmFirst: true,
      });
      const { stdout } = await readUntil(agent, /ready/);
      expect(stdout).toContain("ready");
      expect(await waitFor(() => processesWith(marker).length >= 4)).toBe(true);
      // Warm-started: an ancestor of the command's processes is the chain's init, whose command line holds
      // the boot script (a cold start's init holds the command itself).
      const ancestors = (pid: number): string[] => {
        const lines: string[] = [];
        for (let at = pid, depth = 0; at > 1 && depth < 6; at = parentOf(at), depth++) {
          try {
            lines.push(readFileSync(`/proc/${at}/cmdline`, "latin1"));
          } catch {
            break;
          }
        }
        return lines;
      };
      const warmStarted = processesWith(marker).some((pid) =>
        ancestors(pid).some((line) => line.includes("read -r _b_dn _b_cn <&3")),
      );
      expect(warmStarted).toBe(true);
      agent.kill("SIGKILL");
      const gone = await waitFor(() => processesWith(marker).length === 0);
      const left = processesWith(marker);
      for (const pid of left) process.kill(pid, "SIGKILL");
      expect(gone, `left running: ${left.join(" ")}`).toBe(true);
    });

    it("warmStart: false starts every command cold", async () => {
      const before = new Set(waitingChains());
      const cold = new LocalRunner({ warmStart: false, spawner });
      await run(cold, "true");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(waitingChains().filter((pid) => !before.has(pid))).toEqual([]);
    });

    it("the folder a waiting chain was started in does not matter once it is removed", async () => {
      const workspace = join(dir, "removed-later");
      await mkdir(workspace, { recursive: true });
      const warm = await primed();
      try {
        await rm(workspace, { recursive: true });
        await mkdir(workspace);
        expect((await run(warm, "pwd", { cwd: workspace })).stdout).toBe(`${workspace}\n`);
      } finally {
        await warm.close();
      }
    });
  });
});
