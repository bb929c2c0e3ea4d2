import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OUTPUT_LIMIT_BYTES, runHookCommand } from "../src/run-command.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-hook-run-"));
});
afterEach(() => cleanup());

/**
 * Whether a process still runs: a killed one may stay a zombie until whoever adopted it reaps it, which
 * counts as gone (its state in /proc is Z).
 */
const alive = async (pid: number): Promise<boolean> => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (stat === undefined) return false;
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
};

/** Waits until the process is gone, as the kernel delivers the group's SIGKILL in its own time. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 600; i++) {
    if (!(await alive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe("runHookCommand", () => {
  it("kills the whole process group on timeout, not only the shell", async () => {
    const pidFile = join(dir, "child.pid");
    // The grandchild keeps no pipe open, so only the group kill can end it.
    const outcome = await runHookCommand(
      `sleep 300 >/dev/null 2>&1 </dev/null & echo $! > "${pidFile}"; wait`,
      "{}",
      { cwd: dir, env: process.env, timeoutMs: 500 },
    );
    expect(outcome).toMatchObject({ timedOut: true, exitCode: undefined });
    const pid = Number((await readFile(pidFile, "utf8")).trim());
    expect(pid).toBeGreaterThan(0);
    expect(await gone(pid)).toBe(true);
  });

  it("keeps at most the output limit of each stream and says how much it dropped", async () => {
    const outcome = await runHookCommand("head -c 200000 /dev/zero | tr '\\0' x", "", {
      cwd: dir,
      env: process.env,
      timeoutMs: 60_000,
    });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.stdout.startsWith("x".repeat(OUTPUT_LIMIT_BYTES))).toBe(true);
    expect(outcome.stdout).toContain(`[${200_000 - OUTPUT_LIMIT_BYTES} more bytes dropped]`);
  });

  it("says why a command could not start", async () => {
    const outcome = await runHookCommand("true", "", {
      cwd: join(dir, "no-such-folder"),
      env: process.env,
      timeoutMs: 60_000,
    });
    expect(outcome.exitCode).toBeUndefined();
    expect(outcome.spawnError).toContain("ENOENT");
  });
});
