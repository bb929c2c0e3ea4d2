import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CLI, call, fakeOpenAI, NODE_FLAGS, runCli } from "./cli-harness.js";
import { usePostgres } from "./postgres.js";

// A throwaway Postgres for this file (or BRIDLE_DATABASE_URL's server); durable runs keep DBOS's tables
// in its schema bridle_durable, their sessions in bridle.
const postgres = usePostgres();

/** A long-running bridle process (a worker, a durable run), with its stderr collected as it comes. */
function startCli(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child: ChildProcess = spawn(process.execPath, [...NODE_FLAGS, CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const waitFor = async (pattern: RegExp): Promise<RegExpExecArray> => {
    for (let i = 0; i < 1200; i++) {
      const match = pattern.exec(output.stderr);
      if (match) return match;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no ${pattern} on stderr within 60 s: ${output.stderr}`);
  };
  return { child, output, exited, waitFor };
}

describe("durable runs from the command line", () => {
  let dir: string;
  let repo: string;
  let cleanup: () => Promise<void>;
  let server: FakeProviderServer | undefined;
  const stops: (() => Promise<unknown>)[] = [];
  const env = () => ({
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    OPENAI_API_KEY: "test-key-not-recorded",
    BRIDLE_DATABASE_URL: postgres.url,
  });
  const runArgs = () => [
    "--provider",
    "openai",
    "--model",
    "test-model",
    "--base-url",
    openaiResponsesFormat.baseUrl(server?.url ?? ""),
    "--cwd",
    repo,
    "--sandbox",
    "off",
    "--edit-format",
    "replace",
  ];

  beforeAll(async () => {
    ({ dir, cleanup } = await tempWorkspace("bridle-cli-durable-"));
    repo = join(dir, "repo");
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, "notes.txt"), "hello\n");
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await server?.close();
    server = undefined;
  });
  afterAll(() => cleanup());

  it("--enqueue prints a run id; a worker runs it with the run's own options; runs wait/show/list", async (context) => {
    if (postgres.skip) context.skip(postgres.skip);
    server = await fakeOpenAI([{ text: "Hello from the queue." }]);
    const queued = await runCli(["run", "say hello", "--enqueue", ...runArgs()], { cwd: repo, env: env() });
    expect(queued.code, queued.stderr).toBe(0);
    const runId = queued.stdout.trim();
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const shown = await runCli(["runs", "show", runId, "--json"], { cwd: repo, env: env() });
    const info = JSON.parse(shown.stdout) as {
      status: string;
      request: { options: Record<string, unknown> };
    };
    expect(info.status).toBe("queued");
    expect(info.request.options).toMatchObject({ model: "test-model", cwd: repo, sandbox: "off" });
    // API keys are never recorded with the run.
    expect(shown.stdout).not.toContain("test-key");
    // The worker knows nothing of the model or provider: the run's options say them.
    const worker = startCli(["worker", "--concurrency", "2"], env(), dir);
    stops.push(async () => {
      worker.child.kill("SIGTERM");
      return worker.exited;
    });
    await worker.waitFor(/pulling runs, 2 at a time/);
    const waited = await runCli(["runs", "wait", runId], { cwd: repo, env: env() });
    expect(waited.code, waited.stderr + worker.output.stderr).toBe(0);
    expect(waited.stdout).toContain("Hello from the queue.");
    const listed = await runCli(["runs", "list"], { cwd: repo, env: env() });
    expect(listed.stdout).toMatch(new RegExp(`${runId}\\s+finished completed`));
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  });

  it("--durable pauses for approval, dies, is approved from another process and finished by a worker", async (context) => {
    if (postgres.skip) context.skip(postgres.skip);
    server = await fakeOpenAI([
      { toolCalls: [call("c1", "bash", { command: "rm -rf build" })] },
      { text: "Removed the build folder." },
    ]);
    const run = startCli(["run", "clean the build", "--durable", ...runArgs()], env(), repo);
    stops.push(async () => {
      run.child.kill("SIGKILL");
      return run.exited;
    });
    const [, runId, callId] = await run.waitFor(/bridle runs approve (\S+) (\S+)/);
    run.child.kill("SIGKILL");
    await run.exited;
    // Nothing decided yet: the run waits on the call, in the database.
    const shown = await runCli(["runs", "show", runId as string], { cwd: repo, env: env() });
    expect(shown.stdout).toContain(`waits on ${callId}`);
    const wrong = await runCli(["runs", "approve", runId as string, "nope"], { cwd: repo, env: env() });
    expect(wrong.code).toBe(2);
    const approved = await runCli(["runs", "approve", runId as string, callId as string], {
      cwd: repo,
      env: env(),
    });
    expect(approved.code, approved.stderr).toBe(0);
    const worker = startCli(["worker", "--concurrency", "1"], env(), dir);
    stops.push(async () => {
      worker.child.kill("SIGTERM");
      return worker.exited;
    });
    const waited = await runCli(["runs", "wait", runId as string], { cwd: repo, env: env() });
    expect(waited.code, waited.stderr + worker.output.stderr).toBe(0);
    expect(waited.stdout).toContain("Removed the build folder.");
    // The model was asked twice in all: the first turn was not asked again after the crash.
    expect(server.requests).toHaveLength(2);
  });

  it("refuses durable flags without a database and outside their command", async () => {
    const noDb = await runCli(["run", "x", "--enqueue"], {
      cwd: repo,
      env: { XDG_CONFIG_HOME: join(dir, "config"), XDG_DATA_HOME: join(dir, "data") },
    });
    expect(noDb.code).toBe(2);
    expect(noDb.stderr).toContain("BRIDLE_DATABASE_URL");
    const misplaced = await runCli(["sessions", "list", "--concurrency", "3"], { cwd: repo, env: env() });
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain("--concurrency is an option of bridle worker");
    const both = await runCli(["run", "x", "--durable", "--enqueue"], { cwd: repo, env: env() });
    expect(both.code).toBe(2);
    const badConcurrency = await runCli(["worker", "--concurrency", "0"], { cwd: repo, env: env() });
    expect(badConcurrency.code).toBe(2);
  });
});
