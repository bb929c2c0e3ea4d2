import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { errorMessage } from "@bridle/core";
import { type Attributes, type AttributeValue, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  type ExportResult,
  ExportResultCode,
  hrTimeToMilliseconds,
  hrTimeToNanoseconds,
} from "@opentelemetry/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";

/** One span as a line of a local trace file. Times are ISO strings; `startUnixNano` keeps full precision. */
export interface TraceRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: "internal" | "server" | "client" | "producer" | "consumer";
  readonly start: string;
  readonly startUnixNano: string;
  readonly durationMs: number;
  readonly status: { readonly code: "unset" | "ok" | "error"; readonly message?: string };
  readonly attributes: Readonly<Record<string, AttributeValue>>;
  readonly events: readonly {
    readonly name: string;
    readonly time: string;
    readonly attributes: Readonly<Record<string, AttributeValue>>;
  }[];
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  readonly resource: Readonly<Record<string, AttributeValue>>;
  readonly scope: { readonly name: string; readonly version?: string };
}

const KINDS: Record<SpanKind, TraceRecord["kind"]> = {
  [SpanKind.INTERNAL]: "internal",
  [SpanKind.SERVER]: "server",
  [SpanKind.CLIENT]: "client",
  [SpanKind.PRODUCER]: "producer",
  [SpanKind.CONSUMER]: "consumer",
};

const STATUSES: Record<SpanStatusCode, TraceRecord["status"]["code"]> = {
  [SpanStatusCode.UNSET]: "unset",
  [SpanStatusCode.OK]: "ok",
  [SpanStatusCode.ERROR]: "error",
};

function plain(attributes: Attributes): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

function isoOf(time: ReadableSpan["startTime"]): string {
  return new Date(hrTimeToMilliseconds(time)).toISOString();
}

export function toTraceRecord(span: ReadableSpan): TraceRecord {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    ...(parent ? { parentSpanId: parent.spanId } : {}),
    name: span.name,
    kind: KINDS[span.kind],
    start: isoOf(span.startTime),
    startUnixNano: String(hrTimeToNanoseconds(span.startTime)),
    durationMs: hrTimeToMilliseconds(span.duration),
    status: {
      code: STATUSES[span.status.code],
      ...(span.status.message ? { message: span.status.message } : {}),
    },
    attributes: plain(span.attributes),
    events: span.events.map((event) => ({
      name: event.name,
      time: isoOf(event.time),
      attributes: plain(event.attributes ?? {}),
    })),
    links: span.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId })),
    resource: plain(span.resource.attributes),
    scope: {
      name: span.instrumentationScope.name,
      ...(span.instrumentationScope.version ? { version: span.instrumentationScope.version } : {}),
    },
  };
}

/**
 * A span exporter that appends each span as one JSON line to a local file: traces with no collector.
 * Writes are serialized; a batch is one append, so a crash loses at most the batch being written and never
 * interleaves lines. The folder is created when missing.
 */
export class JsonlSpanExporter implements SpanExporter {
  readonly path: string;
  #writing: Promise<void> = Promise.resolve();
  #ready: Promise<void> | undefined;
  #stopped = false;

  constructor(path: string) {
    this.path = path;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    if (this.#stopped) {
      resultCallback({ code: ExportResultCode.FAILED, error: new Error("the JSONL exporter is shut down") });
      return;
    }
    const text = spans.map((span) => `${JSON.stringify(toTraceRecord(span))}\n`).join("");
    this.#ready ??= mkdir(dirname(this.path), { recursive: true }).then(() => undefined);
    const ready = this.#ready;
    this.#writing = this.#writing.then(async () => {
      try {
        await ready;
        // Owner-only when created: with content capture on, traces hold prompts and tool output.
        await appendFile(this.path, text, { encoding: "utf8", mode: 0o600 });
        resultCallback({ code: ExportResultCode.SUCCESS });
      } catch (error) {
        this.#ready = undefined;
        resultCallback({
          code: ExportResultCode.FAILED,
          error: new Error(`could not append spans to ${this.path}: ${errorMessage(error)}`),
        });
      }
    });
  }

  forceFlush(): Promise<void> {
    return this.#writing;
  }

  async shutdown(): Promise<void> {
    this.#stopped = true;
    await this.#writing;
  }
}

/**
 * The spans of a local trace file. A line that does not parse (the tail of a write cut short by a crash)
 * is skipped, so a damaged file still yields everything that was written whole.
 */
export async function readTraceFile(path: string): Promise<TraceRecord[]> {
  const text = await readFile(path, "utf8");
  const records: TraceRecord[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (isRecord(value)) records.push(value);
    } catch {
      // A partial line: skipped, see above.
    }
  }
  return records;
}

function isRecord(value: unknown): value is TraceRecord {
  if (value === null || typeof value !== "object") return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.traceId === "string" && typeof record.spanId === "string" && typeof record.name === "string"
  );
}
