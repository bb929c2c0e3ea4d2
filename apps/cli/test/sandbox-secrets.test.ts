import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { BubblewrapRunner } from "@bridle/tools-shell";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI, call, fakeOpenAI, NODE_FLAGS, runCli, toolOutputsSent } from "./cli-harness.js";

// The real CLI, started with API keys in its environment, runs shell commands that hunt for them; the
// test hunts too, in every process of the machine, while the agent is running. Then the sandbox by
// default, the one warning when it cannot run, and nothing left running after the agent is killed.
const bwrap = await BubblewrapRunner.probe();
const suffix = randomBytes(6).toString("hex");
const canary = `BRIDLE-CANARY-${suffix}`;

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-sandbox-"));
  repo = join(dir, "repo");
  await mkdir(repo, { recursive: true });
  await mkdir(join(dir, "tmp"));
  // The canary never appears whole in a script's text, so a command cannot find its own.
  await writeFile(
    join(repo, "scan.sh"),
    [
      `P=BRIDLE-CANARY-; P="$P"${suffix}`,
      'found=""',
      "for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do",
      `  content=$(tr '\\0' '\\n' < "$f" 2>/dev/null) || continue`,
      '  case "$content" in *"$P"*) found="$found $f";; esac',
      "done",
      'echo "found:$found"',
      "echo > started; while [ ! -e go ]; do sleep 0.05; done",
    ].join("\n"),
  );
  env = {
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    // A temp folder of this test's own: other test files' CLI runs hand their keys over in the shared one.
    TMPDIR: join(dir, "tmp"),
    OPENAI_API_KEY: canary,
    GITHUB_TOKEN: canary,
  };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

function args(s: FakeProviderServer, sandbox?: string): string[] {
  return [
    "--provider",
    "openai",
    "--model",
    "m",
    "--base-url",
    openaiResponsesFormat.baseUrl(s.url),
    "--cwd",
    repo,
    "--yes",
    ...(sandbox ? ["--sandbox", sandbox] : []),
  ];
}

/** Every process on this machine whose exec-time environment or command line holds `text`. */
function processesHolding(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    for (const file of ["environ", "cmdline"]) {
      try {
        if (readFileSync(`/proc/${pid}/${file}`, "latin1").includes(text)) found.push(`/proc/${pid}/${file}`);
      } catch {
        // gone, or not ours
      }
    }
  }
  return found;
}

async function waitFor(check: () => boolean, timeoutMs = 60_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

const modes = [
  { sandbox: "off", available: true, reason: "" },
  { sandbox: "bwrap", available: bwrap.available, reason: bwrap.reason ?? "" },
];

describe.each(modes)("--sandbox $sandbox", ({ sandbox, available, reason }) => {
  it.skipIf(!available)(
    `no process holds the API key in its environment, and the command finds none${available ? "" : ` — SKIPPED: ${reason}`}`,
    async () => {
      server = await fakeOpenAI([
        { toolCalls: [call("c1", "bash", { command: "sh scan.sh" })] },
        { text: "done" },
      ]);
      const running = runCli(["run", "scan", ...args(server, sandbox)], { cwd: dir, env });
      expect(await waitFor(() => existsSync(join(repo, "started")))).toBe(true);
      // While the agent runs a command: no process anywhere carries the key, and no hand-over file is left.
      expect(processesHolding(canary)).toEqual([]);
      expect(readdirSync(join(dir, "tmp")).filter((name) => name.startsWith("bridle-secrets-"))).toEqual([]);
      await writeFile(join(repo, "go"), "");
      const run = await running;
      expect(run.code, run.stderr).toBe(0);
      expect(toolOutputsSent(server).join("\n")).toMatch(/found:(\\n|")/);
      // The key still reached the provider.
      expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${canary}`);
    },
    // Real processes on a shared machine: a start under load takes seconds, not the default's budget.
    120_000,
  );

  it.skipIf(!available)(
    `a SIGKILL or an interrupt of the agent leaves no command running${available ? "" : ` — SKIPPED: ${reason}`}`,
    async () => {
      for (const signal of ["SIGKILL", "SIGINT"] as const) {
        const marker = `BRIDLE_CLI_LIFE_${process.pid}_${signal}`;
        await writeFile(
          join(repo, "life.sh"),
          `export ${marker}=1; setsid sleep 300 & (sleep 300 &); sleep 300 & echo > started; sleep 300\n`,
        );
        server = await fakeOpenAI([
          { toolCalls: [call("c1", "bash", { command: "sh life.sh" })] },
          { text: "done" },
        ]);
        const agent: ChildProcess = spawn(
          process.execPath,
          [...NODE_FLAGS, CLI, "run", "go", ...args(server, sandbox)],
          {
            cwd: dir,
            env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
            stdio: "ignore",
          },
        );
        const withMarker = () => processesHolding(marker).filter((path) => path.endsWith("environ"));
        expect(await waitFor(() => withMarker().length >= 3)).toBe(true);
        agent.kill(signal);
        const gone = await waitFor(() => withMarker().length === 0);
        const left = withMarker();
        for (const path of left) {
          try {
            process.kill(Number(path.split("/")[2]), "SIGKILL");
          } catch {
            // gone
          }
        }
        expect(gone, `${signal} left: ${left.join(" ")}`).toBe(true);
        // An interrupted agent still ends as it does (its compile cache written on exit) before the folder goes.
        if (agent.exitCode === null && agent.signalCode === null)
          await new Promise((resolve) => agent.once("exit", resolve));
        await server.close();
        server = undefined;
      }
    },
    120_000,
  );
});

describe("the sandbox by default", () => {
  async function fakeBwrap(): Promise<string> {
    const bin = join(dir, "fake-bin");
    await mkdir(bin);
    await writeFile(
      join(bin, "bwrap"),
      [
        "#!/bin/sh",
        "# installed, but this host forbids unprivileged user namespaces",
        'if [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi',
        'echo "bwrap: setting up uid map: Permission denied" >&2',
        "exit 1",
      ].join("\n"),
    );
    await chmod(join(bin, "bwrap"), 0o755);
    return bin;
  }

  it("when it cannot run: says so once, naming what is unprotected, and runs commands unsandboxed", async () => {
    const bin = await fakeBwrap();
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "echo one" })] },
      { toolCalls: [call("c2", "bash", { command: "echo two" })] },
      { text: "done" },
    ]);
    const run = await runCli(["run", "go", ...args(server)], {
      cwd: dir,
      env: { ...env, PATH: `${bin}:${process.env.PATH}` },
    });
    expect(run.code, run.stderr).toBe(0);
    const warnings = run.stderr.match(/the shell sandbox cannot run here/g) ?? [];
    expect(warnings).toHaveLength(1);
    expect(run.stderr).toMatch(/Permission denied/);
    expect(run.stderr).toMatch(/home folder/);
    expect(run.stderr).toMatch(/Unix sockets/);
    expect(run.stderr).toMatch(/network/);
    expect(run.stderr).toMatch(/--sandbox off/);
    expect(toolOutputsSent(server).join("\n")).toContain("two");
  });

  it("--sandbox bwrap refuses to start without it; --sandbox off runs without a warning", async () => {
    const bin = await fakeBwrap();
    server = await fakeOpenAI([{ text: "never" }]);
    const required = await runCli(["run", "go", ...args(server, "bwrap")], {
      cwd: dir,
      env: { ...env, PATH: `${bin}:${process.env.PATH}` },
    });
    expect(required.code).not.toBe(0);
    expect(required.stderr).toMatch(
      /cannot set up the shell \(--sandbox bwrap, --permission-mode workspace\).*cannot run here/s,
    );
    const off = await runCli(["run", "go", ...args(server, "off")], {
      cwd: dir,
      env: { ...env, PATH: `${bin}:${process.env.PATH}` },
    });
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr).not.toMatch(/sandbox cannot run/);
    expect(off.stderr).toMatch(/permission mode workspace, no sandbox/);
  });

  it.skipIf(!bwrap.available)(
    `where it runs, commands are sandboxed without asking for it${bwrap.available ? "" : ` — SKIPPED: ${bwrap.reason}`}`,
    async () => {
      server = await fakeOpenAI([
        { toolCalls: [call("c1", "bash", { command: "sh probe.sh" })] },
        { text: "done" },
      ]);
      await writeFile(
        join(repo, "probe.sh"),
        'ls -A /run; echo "home:$(ls -A "$HOME" | wc -l)"; echo x >> bridle.config.json\n',
      );
      await writeFile(join(repo, "bridle.config.json"), "{}\n");
      const run = await runCli(["run", "go", ...args(server)], { cwd: dir, env });
      expect(run.stderr).not.toMatch(/sandbox cannot run/);
      const output = toolOutputsSent(server).join("\n");
      expect(output).toMatch(/Read-only file system/);
      expect(readFileSync(join(repo, "bridle.config.json"), "utf8")).toBe("{}\n");
    },
  );
});
