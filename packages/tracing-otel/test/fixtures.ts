import { defineTool, type ToolOutput } from "@bridle/core";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { z } from "zod";
import { RunTracer, type RunTracerOptions } from "../src/index.js";

/** A RunTracer writing to an in-memory exporter, span by span. */
export function memoryTracing(options: Omit<RunTracerOptions, "tracerProvider"> = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = new RunTracer({ ...options, tracerProvider: provider });
  return {
    exporter,
    provider,
    tracer,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
  };
}

export function byName(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

export function one(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = byName(spans, name);
  if (found.length !== 1) {
    throw new Error(
      `expected one span "${name}", found ${found.length}: ${spans.map((s) => s.name).join(", ")}`,
    );
  }
  return found[0] as ReadableSpan;
}

export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

export function idOf(span: ReadableSpan): string {
  return span.spanContext().spanId;
}

export const echo = defineTool({
  name: "echo",
  description: "Repeat the text back",
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: text }),
});

/** Stands in for a tool the MCP bridge would make from server "files", tool "read". */
export const mcpRead = defineTool({
  name: "mcp_files_read",
  description: "Read a file through an MCP server",
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => ({ content: `contents of ${path}` }),
});

/** A tool whose every call needs approval. */
export const deploy = defineTool({
  name: "deploy",
  description: "Deploys",
  inputSchema: z.object({ target: z.string() }),
  annotations: { requires_approval: true },
  execute: async ({ target }) => ({ content: `deployed ${target}` }),
});

export const failing = defineTool({
  name: "explode",
  description: "Always fails",
  inputSchema: z.object({}),
  execute: async () => {
    throw new Error("the disk is on fire");
  },
});

/** Waits until the run aborts (or 30 s), telling `started` when it begins. */
export function waitingTool(started: () => void) {
  return defineTool({
    name: "wait",
    description: "Waits for abort",
    inputSchema: z.object({}),
    execute: (_args, ctx) =>
      new Promise<ToolOutput>((resolve) => {
        started();
        const timer = setTimeout(() => resolve({ content: "waited" }), 30_000);
        ctx.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve({ content: "stopped", isError: true });
        });
      }),
  });
}
