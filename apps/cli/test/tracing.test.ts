import { mkdir, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { readTraceFile } from "@bridle/tracing-otel";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, fakeOpenAI, runCli } from "./cli-harness.js";

let dir: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
const receivers: Server[] = [];
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-cli-trace-"));
  env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config"), OPENAI_API_KEY: "k" };
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(receivers.map((r) => new Promise((resolve) => r.close(resolve))));
  receivers.length = 0;
  await cleanup();
});

/** A loopback OTLP/HTTP collector that keeps each request's path, content type and raw protobuf body. */
async function collector() {
  const received: { path: string; type: string; body: Buffer }[] = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({
        path: request.url ?? "",
        type: String(request.headers["content-type"]),
        body: Buffer.concat(chunks),
      });
      response.writeHead(200, { "content-type": "application/x-protobuf" });
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receivers.push(receiver);
  return { origin: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, received, receiver };
}

function args(s: FakeProviderServer, ...more: string[]): string[] {
  return [
    "run",
    "List the folder.",
    "--provider",
    "openai",
    "--model",
    "test-model",
    "--base-url",
    openaiResponsesFormat.baseUrl(s.url),
    "--cwd",
    dir,
    "--no-coding",
    ...more,
  ];
}

const turns = () => [{ toolCalls: [call("c1", "list_dir", { path: "." })] }, { text: "Listed." }];

describe("bridle run --trace / --otlp", () => {
  it("writes the run's spans to a local JSONL file and to an OTLP collector, beside the session record", async () => {
    server = await fakeOpenAI(turns());
    const { origin, received } = await collector();
    const run = await runCli(args(server, "--trace", "spans.jsonl", "--otlp", origin), { cwd: dir, env });
    expect(run.stderr).not.toContain("traces are being lost");
    expect(run.code).toBe(0);
    const records = await readTraceFile(join(dir, "spans.jsonl"));
    const names = records.map((record) => record.name);
    expect(names.some((name) => name.startsWith("invoke_agent"))).toBe(true);
    expect(names.filter((name) => name.startsWith("chat"))).toHaveLength(2);
    expect(names.some((name) => name.startsWith("execute_tool list_dir"))).toBe(true);
    // Chat spans name the server the requests went to: the --base-url's host and port.
    const chat = records.find((record) => record.name.startsWith("chat"));
    expect(chat?.attributes["server.address"]).toBe("127.0.0.1");
    expect(chat?.attributes["server.port"]).toBe(Number(new URL(server.url).port));
    // The same spans went to the collector's traces endpoint as protobuf.
    expect(received.length).toBeGreaterThan(0);
    expect(received.every((request) => request.path === "/v1/traces")).toBe(true);
    expect(received[0]?.type).toBe("application/x-protobuf");
    const body = Buffer.concat(received.map((request) => request.body)).toString("latin1");
    expect(body).toContain("execute_tool list_dir");
    expect(body).toContain("invoke_agent");
    // The session is recorded as before: the store is the run's record.
    const sessionLine = /session: (\S+)/.exec(run.stderr);
    expect(sessionLine).not.toBeNull();
  });

  it("a collector that is down loses the spans, says so once, and the run still completes", async () => {
    server = await fakeOpenAI(turns());
    const { origin, receiver } = await collector();
    await new Promise((resolve) => receiver.close(resolve));
    receivers.length = 0;
    const run = await runCli(args(server, "--otlp", `${origin}/v1/traces`), { cwd: dir, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Listed.");
    expect(run.stderr.match(/traces are being lost/g)).toHaveLength(1);
  });

  it("a relative --trace file lands where the person typed the command, not in the --cwd workspace", async () => {
    server = await fakeOpenAI(turns());
    const here = join(dir, "elsewhere");
    await mkdir(here);
    const run = await runCli(args(server, "--trace", "spans.jsonl"), { cwd: here, env });
    expect(run.code).toBe(0);
    expect((await readTraceFile(join(here, "spans.jsonl"))).length).toBeGreaterThan(0);
    await expect(stat(join(dir, "spans.jsonl"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses an --otlp value that is not an http URL before anything runs", async () => {
    server = await FakeProviderServer.start();
    const run = await runCli(args(server, "--otlp", "localhost:4318"), { cwd: dir, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--otlp needs an http(s) URL");
    expect(server.requests).toHaveLength(0);
  });
});
