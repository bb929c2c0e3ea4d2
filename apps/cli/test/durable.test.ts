import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli } from "./cli-harness.js";
import { startCli } from "./durable-process.js";
import { usePostgres } from "./postgres.js";

// A throwaway Postgres for this file (or BRIDLE_DATABASE_URL's server); durable runs keep DBOS's tables
// in its schema bridle_durable, their sessions in bridle.
const postgres = usePostgres();

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
  /** Where a worker may send its API key: the fake provider of the test. */
  const endpointArgs = () => [
    "--provider",
    "openai",
    "--base-url",
    openaiResponsesFormat.baseUrl(server?.url ?? ""),
  ];
  const runArgs = () => [
    ...endpointArgs(),
    "--model",
    "test-model",
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
    expect(shown.code, shown.stderr).toBe(0);
    const info = JSON.parse(shown.stdout) as {
      status: string;
      request: { options: Record<string, unknown> };
    };
    expect(info.status).toBe("queued");
    expect(info.request.options).toMatchObject({ model: "test-model", cwd: repo, sandbox: "off" });
    // API keys are never recorded with the run.
    expect(shown.stdout).not.toContain("test-key");
    // The worker is told where its key may go; the model and the rest come from the run's options.
    const worker = startCli(["worker", "--concurrency", "2", ...endpointArgs()], env(), dir);
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
    const worker = startCli(["worker", "--concurrency", "1", ...endpointArgs()], env(), dir);
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

  it("a queued run naming another base URL is refused, and nothing reaches it", async (context) => {
    if (postgres.skip) context.skip(postgres.skip);
    server = await fakeOpenAI([{ text: "the worker's own provider" }]);
    const foreign = await fakeOpenAI([{ text: "collected a key" }]);
    stops.push(() => foreign.close());
    const queued = await runCli(
      [
        "run",
        "say hello",
        "--enqueue",
        ...runArgs().filter(
          (_, index, all) => all[index - 1] !== "--base-url" && all[index] !== "--base-url",
        ),
        "--base-url",
        openaiResponsesFormat.baseUrl(foreign.url),
      ],
      { cwd: repo, env: env() },
    );
    expect(queued.code, queued.stderr).toBe(0);
    const runId = queued.stdout.trim();
    const worker = startCli(["worker", "--concurrency", "1", ...endpointArgs()], env(), dir);
    stops.push(async () => {
      worker.child.kill("SIGTERM");
      return worker.exited;
    });
    const waited = await runCli(["runs", "wait", runId], { cwd: repo, env: env() });
    expect(waited.code).toBe(1);
    expect(waited.stderr).toContain("refused: the run names provider openai at http://127.0.0.1:");
    expect(waited.stderr).toContain("this worker sends its API keys only to provider openai at");
    const listed = await runCli(["runs", "list"], { cwd: repo, env: env() });
    expect(listed.stdout).toMatch(new RegExp(`${runId}\\s+failed: refused`));
    expect(foreign.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
  });

  it("runs list says a run waits for a person, on what, and its last step, held by no worker; the worker says it in one line", async (context) => {
    if (postgres.skip) context.skip(postgres.skip);
    server = await fakeOpenAI([
      { toolCalls: [call("c9", "bash", { command: "rm -rf build" })] },
      { text: "Removed." },
    ]);
    const queued = await runCli(["run", "clean up", "--enqueue", ...runArgs()], { cwd: repo, env: env() });
    const runId = queued.stdout.trim();
    const worker = startCli(["worker", "--concurrency", "1", ...endpointArgs()], env(), dir);
    stops.push(async () => {
      worker.child.kill("SIGTERM");
      return worker.exited;
    });
    const [line] = await worker.waitFor(
      new RegExp(`run ${runId} waits for a person: approval of bash \\(call c9\\).*\\n`),
    );
    expect(line.trim().split("\n")).toHaveLength(1);
    // The waiting run holds no slot of the worker (it parked): no process holds it until someone decides.
    const row = await waitForRow(runId, (text) => !text.includes("held by"));
    expect(row).toMatch(/waiting for a person: approval of bash \(call c9\)/);
    expect(row).toMatch(/last step model:0 at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    expect(worker.output.stderr).not.toContain("already executing a query");
    const rejected = await runCli(
      ["runs", "reject", runId, "c9", "--reason", "use the clean script instead"],
      { cwd: repo, env: env() },
    );
    expect(rejected.code, rejected.stderr).toBe(0);
    const waited = await runCli(["runs", "wait", runId], { cwd: repo, env: env() });
    expect(waited.code, waited.stderr + worker.output.stderr).toBe(0);
    // The person's reason reaches the model in the refused call's result, worded as any refusal is.
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1])).toContain(
      "the user did not approve this call: use the clean script instead",
    );
  });

  /** The `bridle runs list` row of `runId`, once `ready` says it is as expected (the run parks just after its line). */
  async function waitForRow(runId: string, ready: (row: string) => boolean): Promise<string> {
    let row = "";
    for (let i = 0; i < 60; i++) {
      const listed = await runCli(["runs", "list"], { cwd: repo, env: env() });
      row = listed.stdout.split("\n").find((text) => text.startsWith(runId)) ?? "";
      if (ready(row)) return row;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`runs list never showed ${runId} as expected; last: ${row}`);
  }

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
