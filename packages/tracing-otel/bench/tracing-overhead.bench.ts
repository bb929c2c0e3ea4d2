// Tracing's cost per tool turn: the same 20-turn run (one tool call per turn, then an answer) with tracing
// off, with a no-op sink (the sink machinery alone), and traced into the OpenTelemetry SDK three ways.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, type EventSink, Harness } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterAll, test } from "vitest";
import { z } from "zod";
import { createTracing, RunTracer } from "../src/index.js";

const TURNS = 20;

const echo = defineTool({
  name: "echo",
  description: "Repeat the text back",
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: text }),
});

function harness(): Harness {
  const model = new ScriptedModel(
    (ctx) =>
      ctx.index < TURNS
        ? {
            toolCalls: [{ name: "echo", arguments: { text: `turn ${ctx.index}` } }],
            usage: { inputTokens: 1000 + ctx.index, outputTokens: 20, cacheReadTokens: 900 },
          }
        : { text: "done", usage: { inputTokens: 2000, outputTokens: 5 } },
    { record: false },
  );
  return new Harness({
    model,
    tools: [echo],
    limits: { maxModelRequests: TURNS + 5, maxToolCalls: TURNS + 5 },
  });
}

async function run(sink?: EventSink): Promise<void> {
  const result = await harness().run({ prompt: "go", ...(sink ? { sink } : {}) });
  if (result.stopReason !== "completed") throw new Error(`run ended with ${result.stopReason}`);
}

const exporter = new InMemorySpanExporter();
// Batched, as createTracing sets it up: what a traced run costs in production, minus the exporter's I/O.
const provider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter })] });
const tracer = new RunTracer({ tracerProvider: provider, captureContent: false });
const capturing = new RunTracer({ tracerProvider: provider, captureContent: { maxLength: 4096 } });
const dir = mkdtempSync(join(tmpdir(), "bridle-trace-bench-"));
const file = createTracing({ file: join(dir, "bench.jsonl"), captureContent: false });
const noop: EventSink = { write: () => {} };
// Long enough runs that the shared machine's noise averages out; warm-up lets the JIT settle first.
const options = { time: 3000, warmupTime: 500, warmupIterations: 20 };

afterAll(async () => {
  await file.shutdown();
  await provider.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

test(`one run of ${TURNS} tool turns`, async ({ bench }) => {
  await bench("tracing off", async () => {
    await run();
  }).run(options);
  await bench("no-op sink", async () => {
    await run(noop);
  }).run(options);
  await bench("RunTracer → SDK (batched), in-memory exporter", async () => {
    await run(tracer);
    exporter.reset();
  }).run(options);
  await bench("RunTracer → SDK (batched), in-memory, content capture on", async () => {
    await run(capturing);
    exporter.reset();
  }).run(options);
  await bench("RunTracer → SDK (batched), JSONL file", async () => {
    await run(file.tracer);
  }).run(options);
});

// The machine is shared, so load drifts between the cases above. Here each sample runs the two back to
// back, and the median of the differences is the overhead with the drift taken out.
const pairs: { off: number; traced: number }[] = [];
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

function report(_task: unknown, mode?: "run" | "warmup"): void {
  if (mode === "warmup") {
    pairs.length = 0;
    return;
  }
  if (pairs.length === 0) return;
  const off = median(pairs.map((pair) => pair.off));
  const traced = median(pairs.map((pair) => pair.traced));
  const overhead = median(pairs.map((pair) => pair.traced - pair.off));
  console.log(
    `[tracing-otel] ${pairs.length} interleaved pairs: median run ${off.toFixed(3)} ms off, ` +
      `${traced.toFixed(3)} ms traced (${(traced / off).toFixed(2)}x); ` +
      `overhead ${((overhead / TURNS) * 1000).toFixed(1)} µs per tool turn`,
  );
}

test(`interleaved: tracing off, then traced (batched SDK), ${TURNS} tool turns each`, async ({ bench }) => {
  await bench("one run off + one run traced", async () => {
    const start = performance.now();
    await run();
    const middle = performance.now();
    await run(tracer);
    pairs.push({ off: middle - start, traced: performance.now() - middle });
    exporter.reset();
  }).run({ ...options, teardown: report });
});
