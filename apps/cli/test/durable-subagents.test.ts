// A subagent's run through the real recipe (the built-in helper, reached with the search tool), in an
// ordinary run and in a durable one: recorded in the session store under the call that started it, and
// traced with its spans under that call's.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { readTraceFile, type TraceRecord } from "@bridle/tracing-otel";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli } from "./cli-harness.js";
import { startCli } from "./durable-process.js";
import { usePostgres } from "./postgres.js";

const postgres = usePostgres();

interface StoredLine {
  readonly event: {
    readonly type: string;
    readonly runId: string;
    readonly toolCallId?: string;
    readonly data?: { readonly type?: string; readonly event?: StoredLine["event"] };
    readonly parentRunId?: string;
    readonly parentToolCallId?: string;
    readonly agentName?: string;
    readonly toolCall?: { readonly name: string };
  };
}

/** The model's turns: the parent finds agent_spawn and starts the helper, which reads a file and answers. */
const turns = () => [
  { toolCalls: [call("t1", "tool_search", { query: "agent_spawn" })] },
  { toolCalls: [call("s1", "agent_spawn", { agent_id: "helper", task: "count the lines of count.txt" })] },
  { toolCalls: [call("r1", "read_file", { path: "count.txt" })] },
  { text: "It has 3 lines." },
  { text: "The helper counted 3 lines." },
];

describe("a subagent's run, stored and traced under the call that started it", () => {
  let dir: string;
  let repo: string;
  let cleanup: () => Promise<void>;
  let server: FakeProviderServer | undefined;
  const env = (extra: Record<string, string> = {}) => ({
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CONFIG_HOME: join(dir, "config"),
    OPENAI_API_KEY: "test-key-not-recorded",
    ...extra,
  });
  const runArgs = (s: FakeProviderServer) => [
    "--provider",
    "openai",
    "--base-url",
    openaiResponsesFormat.baseUrl(s.url),
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
    ({ dir, cleanup } = await tempWorkspace("bridle-cli-subagent-record-"));
    repo = join(dir, "repo");
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, "count.txt"), "one\ntwo\nthree\n");
  });
  const stops: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await server?.close();
    server = undefined;
  });
  afterAll(() => cleanup());

  /** A loopback OTLP/HTTP collector keeping each request's path and raw body. */
  async function collector(): Promise<{ origin: string; received: { path: string; body: Buffer }[] }> {
    const received: { path: string; body: Buffer }[] = [];
    const receiver: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        received.push({ path: request.url ?? "", body: Buffer.concat(chunks) });
        response.writeHead(200, { "content-type": "application/x-protobuf" });
        response.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    stops.push(() => new Promise((resolve) => receiver.close(resolve)));
    return { origin: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, received };
  }

  /** What `bridle sessions show ID --json` prints: the stored entries, in order. */
  async function stored(sessionId: string, extraEnv: Record<string, string>, store: string[] = []) {
    const shown = await runCli(["sessions", "show", sessionId, "--json", ...store], {
      cwd: repo,
      env: env(extraEnv),
    });
    expect(shown.code, shown.stderr).toBe(0);
    return shown.stdout
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as StoredLine);
  }

  function expectNestedInSession(entries: readonly StoredLine[]): string {
    const parentRun = entries.find((entry) => entry.event.type === "run_started")?.event.runId ?? "";
    // Every event of the session is the parent's: the child's travel inside the spawning call's progress.
    expect(entries.every((entry) => entry.event.runId === parentRun)).toBe(true);
    const carried = entries.flatMap((entry) =>
      entry.event.type === "tool_progress" &&
      entry.event.data?.type === "subagent_event" &&
      entry.event.data.event
        ? [{ call: entry.event.toolCallId, child: entry.event.data.event }]
        : [],
    );
    expect(carried.map((c) => c.child.type)).toEqual(
      expect.arrayContaining(["run_started", "tool_call_requested", "tool_call_completed", "run_completed"]),
    );
    for (const { call: callId, child } of carried) {
      expect(callId).toBe("s1");
      expect(child).toMatchObject({ parentRunId: parentRun, parentToolCallId: "s1", agentName: "helper" });
    }
    expect(new Set(carried.map((c) => c.child.runId)).size).toBe(1);
    const read = carried.find((c) => c.child.type === "tool_call_requested")?.child;
    expect(read?.toolCall?.name).toBe("read_file");
    return parentRun;
  }

  /** The child's run span sits under the parent's agent_spawn span, and the child's call under its run. */
  function expectNestedSpans(records: readonly TraceRecord[], parentRun: string): void {
    const spawn = records.find((r) => r.name === "execute_tool agent_spawn");
    const runs = records.filter((r) => r.name.startsWith("invoke_agent"));
    const childRun = runs.find((r) => r.attributes["bridle.run.parent_id"] === parentRun);
    expect(spawn, records.map((r) => r.name).join(", ")).toBeDefined();
    expect(childRun, runs.map((r) => JSON.stringify(r.attributes)).join("\n")).toBeDefined();
    expect(childRun?.parentSpanId).toBe(spawn?.spanId);
    expect(childRun?.traceId).toBe(spawn?.traceId);
    const childRead = records.find((r) => r.name === "execute_tool read_file");
    expect(childRead?.parentSpanId).toBe(childRun?.spanId);
    const parentRunSpan = runs.find((r) => r.spanId === spawn?.parentSpanId);
    expect(parentRunSpan?.attributes["bridle.run.parent_id"]).toBeUndefined();
  }

  it("an ordinary bridle run: the helper's run is in the session under agent_spawn, and its spans under that call's", async () => {
    server = await fakeOpenAI(turns());
    const trace = join(dir, "ordinary-spans.jsonl");
    const run = await runCli(
      ["run", "count the lines", "--session", "ordinary-sub", "--trace", trace, ...runArgs(server)],
      { cwd: repo, env: env() },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("The helper counted 3 lines.");
    const parentRun = expectNestedInSession(await stored("ordinary-sub", {}));
    expectNestedSpans(await readTraceFile(trace), parentRun);
  });

  it("a durable bridle run: the same, from the run's steps, in the Postgres store", async (context) => {
    if (postgres.skip) context.skip(postgres.skip);
    server = await fakeOpenAI(turns());
    const trace = join(dir, "durable-spans.jsonl");
    const database = { BRIDLE_DATABASE_URL: postgres.url };
    const run = await runCli(
      [
        "run",
        "count the lines",
        "--durable",
        "--session",
        "durable-sub",
        "--trace",
        trace,
        ...runArgs(server),
      ],
      { cwd: repo, env: env(database) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("The helper counted 3 lines.");
    const parentRun = expectNestedInSession(await stored("durable-sub", database, ["--store", "postgres"]));
    expectNestedSpans(await readTraceFile(trace), parentRun);
    // A queued run is traced where it runs, not where it was queued: said, not ignored.
    const queued = await runCli(
      ["run", "x", "--enqueue", "--trace", join(dir, "never.jsonl"), ...runArgs(server)],
      { cwd: repo, env: env(database) },
    );
    expect(queued.code).toBe(2);
    expect(queued.stderr).toContain("--trace and --otlp go with --durable");
    await expect(readFile(join(dir, "never.jsonl"))).rejects.toThrow();
  });

  it("a queued run traced by the worker that runs it: --trace and --otlp of bridle worker", async (context) => {
    if (postgres.skip) context.skip(postgres.skip);
    server = await fakeOpenAI(turns());
    const trace = join(dir, "worker-spans.jsonl");
    const database = { BRIDLE_DATABASE_URL: postgres.url };
    const { origin, received } = await collector();
    const queued = await runCli(
      ["run", "count the lines", "--enqueue", "--session", "worker-sub", ...runArgs(server)],
      { cwd: repo, env: env(database) },
    );
    expect(queued.code, queued.stderr).toBe(0);
    const runId = queued.stdout.trim();
    const endpoint = runArgs(server).slice(0, 4);
    const worker = startCli(
      ["worker", "--concurrency", "1", "--trace", trace, "--otlp", origin, ...endpoint],
      { ...env(database), PATH: process.env.PATH ?? "" },
      dir,
    );
    stops.push(async () => {
      worker.child.kill("SIGKILL");
      return worker.exited;
    });
    await worker.waitFor(/pulling runs, 1 at a time/);
    const waited = await runCli(["runs", "wait", runId], { cwd: repo, env: env(database) });
    expect(waited.code, waited.stderr + worker.output.stderr).toBe(0);
    expect(waited.stdout).toContain("The helper counted 3 lines.");
    // Spans are flushed when the worker stops.
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(worker.output.stderr).not.toContain("traces are being lost");
    const parentRun = expectNestedInSession(await stored("worker-sub", database, ["--store", "postgres"]));
    expect(parentRun).toBe(runId);
    expectNestedSpans(await readTraceFile(trace), parentRun);
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((request) => request.path === "/v1/traces")).toBe(true);
    const body = Buffer.concat(received.map((request) => request.body)).toString("latin1");
    expect(body).toContain("execute_tool agent_spawn");
    expect(body).toContain(runId);
    // A bad collector URL is a usage error before any process starts, not a restart loop.
    const bad = await runCli(["worker", "--otlp", "localhost:4318", ...endpoint], {
      cwd: repo,
      env: env(database),
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--otlp needs an http(s) URL");
  });
});
