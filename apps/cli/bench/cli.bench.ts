import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Harness, type Model, type ModelRequest, Workspace } from "@bridle/core";
import { createOpenAIResponsesModel } from "@bridle/providers-openai";
import { FakeProviderServer, openaiResponsesFormat } from "@bridle/testing";
import { createFsTools } from "@bridle/tools-fs";
import { createShellTools } from "@bridle/tools-shell";
import { afterAll, test } from "vitest";
import { CLI, NODE_FLAGS } from "../test/cli-harness.js";

// Figures for issue 9, printed once per run. Targets: --version cold start <= 80 ms; the harness's own
// time per shell tool turn <= 3 ms median and <= 1.3x from turns 1-50 to 450-500 of a 500-turn session;
// peak RSS < 150 MB; first request with the default tools <= 6 KB.
// Every temporary folder is removed after the run, also when a bench throws half-way.
const made: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "bridle-bench-"));
  made.push(dir);
  return dir;
}
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

const median = (xs: readonly number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

function coldStart(): void {
  const time = (args: string[]) => {
    const samples: number[] = [];
    for (let i = 0; i < 15; i++) {
      const started = performance.now();
      execFileSync(process.execPath, args, { stdio: "ignore" });
      samples.push(performance.now() - started);
    }
    return median(samples);
  };
  const bare = time(["-e", "0"]);
  const version = time([...NODE_FLAGS, CLI, "--version"]);
  console.log(
    `cold start: bridle --version ${version.toFixed(1)} ms median, bare node ${bare.toFixed(1)} ms`,
  );
}

/** A fake OpenAI server whose model calls `bash echo ok` `turns` times, then answers. */
async function shellTurnServer(turns: number): Promise<FakeProviderServer> {
  const server = await FakeProviderServer.start();
  const args = JSON.stringify({ command: "echo ok" });
  for (let i = 0; i < turns; i++) {
    const toolCalls = [{ id: `c${i}`, name: "bash", arguments: args }];
    server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ toolCalls }) });
  }
  server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "done" }) });
  return server;
}

async function shellTurns(turns: number): Promise<void> {
  const dir = await tempDir();
  await writeFile(join(dir, "a.txt"), "hello\n");
  const server = await shellTurnServer(turns);
  const inner = createOpenAIResponsesModel({
    model: "bench",
    apiKey: "bench",
    baseURL: openaiResponsesFormat.baseUrl(server.url),
  });
  // The gap between the end of one model turn and the start of the next request, minus the time the
  // shell command itself ran (measured by the bash tool as the child's wall time).
  let turnEnded = 0;
  const gaps: number[] = [];
  const model: Model = {
    provider: inner.provider,
    model: inner.model,
    async *stream(request: ModelRequest) {
      if (turnEnded > 0) gaps.push(performance.now() - turnEnded);
      for await (const event of inner.stream(request)) {
        if (event.type === "done") turnEnded = performance.now();
        yield event;
      }
    },
  };
  const shell = await createShellTools();
  const fs = createFsTools();
  const harness = new Harness({
    model,
    tools: [...fs.tools, shell.bash],
    workspace: new Workspace(dir),
    limits: { maxModelRequests: turns + 1, maxToolCalls: turns },
  });
  const commandMs: number[] = [];
  const stream = harness.stream({ prompt: "go" });
  for await (const event of stream) {
    if (event.type === "tool_call_completed") commandMs.push(event.durationMs);
  }
  const result = await stream.result;
  const firstRequestBytes = Buffer.byteLength(JSON.stringify(server.requests[0]?.body));
  await shell.stopAll();
  await server.close();
  await rm(dir, { recursive: true, force: true });
  if (result.stopReason !== "completed") throw new Error(`run ended with ${result.stopReason}`);
  const early = gaps.slice(0, 50);
  const late = gaps.slice(-50);
  // The harness's own share of each turn: the gap less that turn's tool call.
  const own = gaps.map((gap, i) => gap - (commandMs[i] ?? 0));
  const ownEarly = median(own.slice(0, 50));
  const ownLate = median(own.slice(-50));
  console.log(
    [
      `${turns} shell tool turns: harness gap per turn (tool call included) median ${median(gaps).toFixed(2)} ms`,
      `  turns 1-50 ${median(early).toFixed(2)} ms, last 50 ${median(late).toFixed(2)} ms, ratio ${(median(late) / median(early)).toFixed(2)}`,
      `  bash tool call (spawn + policy + capture) median ${median(commandMs).toFixed(2)} ms`,
      `  harness without the tool call: median ${median(own).toFixed(2)} ms; turns 1-50 ${ownEarly.toFixed(2)} ms, last 50 ${ownLate.toFixed(2)} ms, ratio ${(ownLate / ownEarly).toFixed(2)}`,
      `  first request ${firstRequestBytes} bytes`,
    ].join("\n"),
  );
}

/** Peak RSS of the real CLI process over a 500-turn session, read by GNU time (Debian package "time"). */
async function cliPeakMemory(turns: number): Promise<void> {
  if (!existsSync("/usr/bin/time")) {
    console.log("peak memory: /usr/bin/time is missing (apt-get install time); not measured");
    return;
  }
  const dir = await tempDir();
  const server = await shellTurnServer(turns);
  const args = [
    "-f",
    "%M",
    process.execPath,
    ...NODE_FLAGS,
    CLI,
    "run",
    "go",
    "--json",
    "--cwd",
    dir,
    "--max-turns",
    String(turns + 1),
  ];
  args.push("--base-url", openaiResponsesFormat.baseUrl(server.url), "--model", "bench");
  const child = spawn("/usr/bin/time", args, {
    env: { PATH: process.env.PATH, HOME: dir, OPENAI_API_KEY: "bench", XDG_DATA_HOME: join(dir, "data") },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  await server.close();
  await rm(dir, { recursive: true, force: true });
  const kb = Number(stderr.trim().split("\n").at(-1));
  console.log(`bridle run, ${turns} shell tool turns: exit ${code}, peak RSS ${(kb / 1024).toFixed(0)} MB`);
}

test("bridle cli", async ({ bench }) => {
  await bench("cold start", coldStart).run({ iterations: 1, time: 0, warmupIterations: 0 });
  await bench("500 shell tool turns", () => shellTurns(500)).run({
    iterations: 1,
    time: 0,
    warmupIterations: 0,
  });
  await bench("peak memory of a 500-turn CLI run", () => cliPeakMemory(500)).run({
    iterations: 1,
    time: 0,
    warmupIterations: 0,
  });
});
