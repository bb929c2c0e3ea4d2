import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createShellTools, type ShellTools } from "../src/index.js";
import { alive, call, expectMemoryLimitHolds, failure, processesWith, waitFor } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
let shell: ShellTools;

beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-bash-"));
  await mkdir(join(dir, "sub"));
  await writeFile(join(dir, "file.txt"), "hello\n");
  shell = await createShellTools({
    killGraceMs: 300,
    sandbox: { max_stdout_bytes: 2_000, max_stderr_bytes: 1_000 },
    maxOutputFileBytes: 1 << 20,
  });
});
afterAll(async () => {
  await shell.stopAll();
  await cleanup();
});

describe("bash", () => {
  it("returns the JSON result with exactly the contract's fields", async () => {
    const { result, output } = await call(shell.bash, { command: "echo hi; echo oops >&2" }, dir);
    expect(Object.keys(result).sort()).toEqual([
      "command",
      "exit_code",
      "shell",
      "stderr",
      "stdout",
      "success",
      "timed_out",
    ]);
    expect(result).toMatchObject({
      command: "echo hi; echo oops >&2",
      stdout: "hi\n",
      stderr: "oops\n",
      exit_code: 0,
      success: true,
      timed_out: false,
    });
    expect(result.shell).toMatch(/\/(ba)?sh$/);
    expect(output.isError ?? false).toBe(false);
  });

  it("reports a non-zero exit as a result, not a failure", async () => {
    const { result, output } = await call(shell.bash, { command: "cat missing.txt; exit 3" }, dir);
    expect(result.exit_code).toBe(3);
    expect(result.success).toBe(false);
    expect(result.stderr).toContain("missing.txt");
    expect(output.isError ?? false).toBe(false);
  });

  it("runs in the cwd it is given, inside the workspace only", async () => {
    const { result } = await call(shell.bash, { command: "pwd", cwd: "sub" }, dir);
    expect(result.stdout.trim().endsWith("/sub")).toBe(true);
    expect((await failure(call(shell.bash, { command: "pwd", cwd: ".." }, dir))).kind).toBe("Denied");
    expect((await failure(call(shell.bash, { command: "pwd", cwd: "nope" }, dir))).kind).toBe("NotFound");
    expect((await failure(call(shell.bash, { command: "pwd", cwd: "file.txt" }, dir))).kind).toBe(
      "InvalidInput",
    );
  });

  it("clears the environment to the allowlist", async () => {
    process.env.BRIDLE_TEST_API_TOKEN = "sk-test-secret";
    try {
      const { result } = await call(shell.bash, { command: "env" }, dir);
      expect(result.stdout).not.toContain("sk-test-secret");
      expect(result.stdout).toMatch(/^PATH=/m);
    } finally {
      delete process.env.BRIDLE_TEST_API_TOKEN;
    }
  });

  it("denies what the policy denies, with its reasons", async () => {
    const denied = await failure(call(shell.bash, { command: "echo x > /etc/bridle-test" }, dir));
    expect(denied.kind).toBe("Denied");
    expect(denied.message).toMatch(/outside the workspace/);
    expect(existsSync("/etc/bridle-test")).toBe(false);
  });

  it("refuses every command when the sandbox disables the shell", async () => {
    const off = await createShellTools({ sandbox: { shell_enabled: false } });
    expect((await failure(call(off.bash, { command: "true" }, dir))).kind).toBe("Denied");
  });

  it("soft timeout: SIGTERM to the process group", async () => {
    const { result } = await call(shell.bash, { command: "sleep 30", timeout_ms: 200 }, dir);
    expect(result).toMatchObject({ timed_out: true, timeout_kind: "soft", success: false, exit_code: 143 });
    expect(result.message).toMatch(/SIGTERM/);
  });

  it("hard timeout: SIGKILL when SIGTERM is ignored, grandchildren included", async () => {
    const marker = `BRIDLE_MARK_${Date.now()}_hard`;
    const command = `export ${marker}=1; trap '' TERM; (trap '' TERM; sleep 30) & sleep 30`;
    const { result } = await call(shell.bash, { command, timeout_ms: 200 }, dir);
    expect(result).toMatchObject({ timed_out: true, timeout_kind: "hard", exit_code: 137 });
    expect(await waitFor(() => processesWith(marker).length === 0)).toBe(true);
  });

  it("does not wait for, and does not leave behind, background children", async () => {
    const marker = `BRIDLE_MARK_${Date.now()}_bg`;
    // The child outlives the call's own timeout: a call that waited for it would come back timed out,
    // which no amount of load on the machine makes happen to a call that did not wait.
    const { result } = await call(
      shell.bash,
      { command: `export ${marker}=1; sleep 600 & echo started`, timeout_ms: 60_000 },
      dir,
    );
    expect(result).toMatchObject({ stdout: "started\n", timed_out: false, exit_code: 0 });
    expect(await waitFor(() => processesWith(marker).length === 0)).toBe(true);
  });

  it("catches processes that left the process group, where a cgroup or a pid namespace tracks the tree", async (context) => {
    const timeout = shell.environment.enforcement.find((l) => l.limit === "max_execution_ms");
    if (!/cgroup|pid namespace/.test(timeout?.how ?? "")) {
      context.skip(`no writable cgroup and no pid namespace here: ${timeout?.how}`);
    }
    const marker = `BRIDLE_MARK_${Date.now()}_setsid`;
    const { result } = await call(
      shell.bash,
      { command: `export ${marker}=1; setsid sleep 30 & echo started` },
      dir,
    );
    expect(result.stdout).toBe("started\n");
    expect(await waitFor(() => processesWith(marker).length === 0)).toBe(true);
  });

  it("joins no cgroup of its own where a pid namespace already tracks the tree (no migration per command)", async (context) => {
    const timeout = shell.environment.enforcement.find((l) => l.limit === "max_execution_ms");
    if (!timeout?.how.includes("pid namespace")) context.skip(`no pid namespace here: ${timeout?.how}`);
    const { result } = await call(shell.bash, { command: "cat /proc/self/cgroup" }, dir);
    expect(result.exit_code).toBe(0);
    expect(result.stdout).not.toMatch(/bridle-\d+-/);
    const limited = await createShellTools({ policy: false, sandbox: { max_processes: 64 } });
    const inLimits = await call(limited.bash, { command: "cat /proc/self/cgroup" }, dir);
    const pids = limited.environment.enforcement.find((l) => l.limit === "max_processes");
    if (pids?.how.startsWith("cgroup")) expect(inLimits.result.stdout).toMatch(/bridle-\d+-/);
  });

  it("caps output keeping head and tail, and spills the whole of it to a file in the workspace", async () => {
    const { result, details } = await call(shell.bash, { command: "seq 1 100000" }, dir);
    expect(result.stdout.startsWith("1\n2\n3\n")).toBe(true);
    expect(result.stdout.endsWith("99999\n100000\n")).toBe(true);
    expect(result.stdout.length).toBeLessThan(2_300);
    expect(result.message).toMatch(/head and tail are shown, all of it is in \.bridle\/shell-output\//);
    const file = join(dir, details.stdout_file ? details.stdout_file.slice(dir.length + 1) : "missing");
    expect(statSync(file).size).toBe(details.stdout_bytes);
    expect(readFileSync(file, "utf8").split("\n")[49_999]).toBe("50000");
    expect(readFileSync(join(dir, ".bridle", "shell-output", ".gitignore"), "utf8")).toBe("*\n");
  });

  it("stops runaway output at the spill limit", async () => {
    const { result, details } = await call(shell.bash, { command: "yes" }, dir);
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/output passed 1048576 bytes: the command was stopped/);
    expect(statSync(details.stdout_file as string).size).toBe(1 << 20);
  });

  it("streams output as progress events", async () => {
    const { progress } = await call(shell.bash, { command: "echo one; sleep 0.3; echo two >&2" }, dir);
    expect(progress).toContainEqual({ stream: "stdout", text: "one\n" });
    expect(progress).toContainEqual({ stream: "stderr", text: "two\n" });
  });

  it("abort kills the whole process tree", async () => {
    const marker = `BRIDLE_MARK_${Date.now()}_abort`;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const pending = call(shell.bash, { command: `export ${marker}=1; (sleep 30 &); sleep 30 | cat` }, dir, {
      signal: controller.signal,
    });
    const { result } = await pending;
    expect(result.message).toMatch(/aborted/);
    expect(await waitFor(() => processesWith(marker).length === 0)).toBe(true);
  });

  it("holds the memory limit (cgroup, or an address-space rlimit)", async () => {
    const limited = await createShellTools({ policy: false, sandbox: { max_memory_mb: 64 } });
    const limit = limited.environment.enforcement.find((l) => l.limit === "max_memory_mb");
    expect(limit?.enforced).toBe(true);
    await expectMemoryLimitHolds(limited, dir);
  });

  it("caps timeout_ms at the policy's maximum and says so", async () => {
    const short = await createShellTools({ sandbox: { max_execution_ms: 300 }, killGraceMs: 100 });
    const { result } = await call(short.bash, { command: "sleep 5", timeout_ms: 60_000 }, dir);
    expect(result.timed_out).toBe(true);
    expect(result.message).toMatch(/capped/);
  });

  it("rejects malformed arguments through its schema", () => {
    expect(shell.bash.inputSchema.safeParse({ command: "" }).success).toBe(false);
    expect(shell.bash.inputSchema.safeParse({ command: "ls", timeout_ms: -1 }).success).toBe(false);
  });

  it("names the limits the local runner cannot enforce", async () => {
    const limited = await createShellTools({ sandbox: { network: "disabled" } });
    expect(limited.bash.description).toMatch(/Not enforced: filesystem, network\.$/);
    await expect(createShellTools({ requireEnforced: true })).rejects.toThrow(/cannot enforce/);
  });
});

describe("background commands", () => {
  const byName = (name: string) => {
    const tool = shell.tools.find((t) => t.name === name);
    if (!tool) throw new Error(name);
    return tool;
  };

  it("starts, reads output so far, lists and stops", async () => {
    const started = await call(
      byName("bash_start"),
      { command: "for i in 1 2 3; do echo line$i; done; sleep 30" },
      dir,
    );
    const { id, pid } = started.result as unknown as { id: string; pid: number };
    // The lines arrive when the loaded machine gets to them: read until all three are in.
    let stdout = "";
    let running = false;
    await expect
      .poll(
        async () => {
          const read = (await call(byName("bash_output"), { id }, dir)).result as unknown as {
            running: boolean;
            stdout: string;
          };
          stdout += read.stdout;
          running = read.running;
          return stdout;
        },
        { timeout: 60_000, interval: 50 },
      )
      .toBe("line1\nline2\nline3\n");
    expect(running).toBe(true);
    const again = (await call(byName("bash_output"), { id }, dir)).result as unknown as { stdout: string };
    expect(again.stdout).toBe("");
    const listed = (await call(byName("bash_list"), {}, dir)).result as unknown as {
      id: string;
      running: boolean;
    }[];
    expect(listed).toContainEqual(expect.objectContaining({ id, running: true }));
    const stopped = (await call(byName("bash_stop"), { id }, dir)).result as unknown as {
      running: boolean;
      exit_code: number;
    };
    expect(stopped.running).toBe(false);
    // Killed; on a loaded machine the kernel may take a moment to finish it (a zombie counts as gone).
    await expect.poll(() => alive(pid), { timeout: 60_000, interval: 50 }).toBe(false);
    expect((await failure(call(byName("bash_output"), { id: "bg999" }, dir))).kind).toBe("NotFound");
  });

  it("stops a run's commands when the run ends, unless keep_alive", async () => {
    const a = (await call(byName("bash_start"), { command: "sleep 30" }, dir, { runId: "run-a" }))
      .result as unknown as { pid: number };
    const b = (
      await call(byName("bash_start"), { command: "sleep 30", keep_alive: true }, dir, { runId: "run-a" })
    ).result as unknown as { pid: number };
    const hook = shell.hooks[0];
    if (hook?.event !== "run_end") throw new Error("no run_end hook");
    await hook.handler({ runId: "run-a", stopReason: "completed", finalText: "", usage: {} as never });
    expect(await waitFor(() => !alive(a.pid))).toBe(true);
    expect(alive(b.pid)).toBe(true);
    await shell.stopAll();
    expect(await waitFor(() => !alive(b.pid))).toBe(true);
  });
});
