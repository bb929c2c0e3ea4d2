import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BubblewrapRunner, createShellTools, type ShellTools } from "../src/index.js";
import { call, expectMemoryLimitHolds, processesWith, waitFor } from "./helpers.js";

// The sandbox tests need bwrap and user namespaces (or root). Where they are missing the suite is
// skipped under a title that says why; BRIDLE_REQUIRE_SANDBOX=1 turns that into a failure.
const probe = await BubblewrapRunner.probe();
const why = probe.available ? "" : ` — SKIPPED: ${probe.reason}`;

describe("bubblewrap availability", () => {
  it(`bwrap works here (${probe.available ? probe.version : "unavailable"})`, () => {
    if (process.env.BRIDLE_REQUIRE_SANDBOX === "1") expect(probe.reason).toBeUndefined();
    else if (!probe.available) console.warn(`bubblewrap sandbox tests skipped: ${probe.reason}`);
  });
});

describe("a sandbox that cannot run", () => {
  it("is detected and named, never silently replaced by the local runner", async () => {
    const missing = await BubblewrapRunner.probe("/nonexistent/bwrap");
    expect(missing.available).toBe(false);
    expect(missing.reason).toMatch(/not installed or not runnable/);
    await expect(
      createShellTools({ runner: new BubblewrapRunner({ bwrap: "/nonexistent/bwrap" }) }),
    ).rejects.toThrow(/bubblewrap runner cannot run here/);
  });
});

describe.skipIf(!probe.available)(`BubblewrapRunner${why}`, () => {
  let dir: string;
  let fakeHome: string;
  let cleanup: () => Promise<void>;
  let shell: ShellTools;
  let server: Server;
  let port: number;
  const savedHome = process.env.HOME;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-bwrap-"));
    // A home folder with a private key: the sandbox must hide it although the root is readable.
    fakeHome = join(dir, "..", `${dir.split("/").pop()}-home`);
    await mkdir(join(fakeHome, ".ssh"), { recursive: true });
    await writeFile(join(fakeHome, ".ssh", "id_ed25519"), "PRIVATE KEY\n");
    process.env.HOME = fakeHome;
    shell = await createShellTools({
      runner: new BubblewrapRunner(),
      killGraceMs: 300,
      maxOutputFileBytes: 1 << 20,
      sandbox: { max_processes: 64 },
    });
    server = createServer((_req, res) => res.end("reachable"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    process.env.HOME = savedHome;
    server.close();
    await cleanup();
    const { rm } = await import("node:fs/promises");
    await rm(fakeHome, { recursive: true, force: true });
  });

  it("runs commands with the workspace writable", async () => {
    const { result } = await call(
      shell.bash,
      { command: "echo inside > made.txt && cat made.txt && pwd" },
      dir,
    );
    expect(result.stdout).toBe(`inside\n${dir}\n`);
    expect(existsSync(join(dir, "made.txt"))).toBe(true);
  });

  it("fails a write outside the workspace (the root is read-only, /tmp private)", async () => {
    const name = `bridle-escape-${Date.now()}`;
    // The policy would deny these outright; the runner is tested on its own by hiding them in a variable.
    const command = `T=/usr/${name}; touch "$T"; echo "usr:$?"; D=/tmp/${name}; touch "$D" && echo "tmp:$?"`;
    const runner = await createShellTools({ runner: new BubblewrapRunner(), policy: false });
    const { result } = await call(runner.bash, { command }, dir);
    expect(result.stdout).toMatch(/usr:1/);
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(result.stdout).toMatch(/tmp:0/);
    expect(existsSync(`/usr/${name}`)).toBe(false);
    expect(existsSync(`/tmp/${name}`)).toBe(false);
  });

  it("cannot reach the network, even the host's loopback", async () => {
    const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
    const closed = await createShellTools({ runner: new BubblewrapRunner(), policy: false });
    const { result } = await call(closed.bash, { command }, dir);
    expect(result.success).toBe(false);
    expect(result.stdout).not.toContain("reachable");
    // The same command reaches the server when the policy allows the network: the test can fail.
    const open = await createShellTools({
      runner: new BubblewrapRunner(),
      policy: false,
      sandbox: { network: "enabled" },
    });
    expect((await call(open.bash, { command }, dir)).result.stdout).toContain("reachable");
  });

  it("holds no secrets: neither in the environment nor in HOME's credential folders", async () => {
    process.env.AWS_SECRET_ACCESS_KEY = "aws-secret-for-test";
    try {
      const runner = await createShellTools({ runner: new BubblewrapRunner(), policy: false });
      const { result } = await call(
        runner.bash,
        { command: 'env; cat "$HOME/.ssh/id_ed25519"; ls -A "$HOME/.ssh"' },
        dir,
      );
      expect(result.stdout).not.toContain("aws-secret-for-test");
      expect(result.stdout).not.toContain("PRIVATE KEY");
      expect(result.stderr).toMatch(/No such file/);
      expect(result.stdout).toContain(`HOME=${fakeHome}`);
    } finally {
      delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });

  it("sees only its own processes (pid namespace)", async () => {
    const { result } = await call(shell.bash, { command: "ls /proc | grep -c '^[0-9]'" }, dir);
    expect(Number(result.stdout.trim())).toBeLessThan(8);
  });

  it("contains runaway output", async () => {
    const { result, details } = await call(shell.bash, { command: "yes" }, dir);
    expect(result.success).toBe(false);
    expect(result.message).toMatch(/output passed/);
    expect(details.stdout_bytes).toBeGreaterThanOrEqual(1 << 20);
  });

  it("times out and kills grandchildren", async () => {
    const marker = `BRIDLE_MARK_${Date.now()}_bwrap`;
    const command = `export ${marker}=1; (sleep 60 &); sleep 60 & sleep 60`;
    const { result } = await call(shell.bash, { command, timeout_ms: 300 }, dir);
    expect(result.timed_out).toBe(true);
    expect(await waitFor(() => processesWith(marker).length === 0)).toBe(true);
  });

  it("holds the memory limit", async () => {
    const limited = await createShellTools({
      runner: new BubblewrapRunner(),
      policy: false,
      sandbox: { max_memory_mb: 64 },
    });
    await expectMemoryLimitHolds(limited, dir);
  });

  it("contains a fork bomb (max_processes)", async (context) => {
    const limit = shell.environment.enforcement.find((l) => l.limit === "max_processes");
    // An unbounded fork bomb would take the machine with it: never run one that nothing holds.
    if (!limit?.enforced) context.skip(`max_processes is not enforced here: ${limit?.how}`);
    const marker = `BRIDLE_MARK_${Date.now()}_bomb`;
    const command = `export ${marker}=1; bomb() { bomb | bomb & }; bomb; sleep 2; echo survived`;
    const { result } = await call(shell.bash, { command, timeout_ms: 4_000 }, dir);
    expect(result.stderr).toMatch(/fork|retry|Resource temporarily unavailable/i);
    expect(await waitFor(() => processesWith(marker).length === 0)).toBe(true);
    // The machine is still fine: another command runs normally.
    expect((await call(shell.bash, { command: "echo ok" }, dir)).result.stdout).toBe("ok\n");
  });
});
