import type { Attributes } from "@opentelemetry/api";
import { type ExportResult, ExportResultCode } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { JsonlSpanExporter } from "./jsonl-exporter.js";
import { RunTracer, type RunTracerOptions } from "./run-tracer.js";

/** Where OTLP/HTTP export goes. Unset fields fall back to the OTEL_EXPORTER_OTLP_* environment variables. */
export interface OtlpOptions {
  /** The traces endpoint (default http://localhost:4318/v1/traces). */
  readonly url?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Per export request (default 10 000). */
  readonly timeoutMillis?: number;
  /** Gzip request bodies (default: none, or OTEL_EXPORTER_OTLP_COMPRESSION). */
  readonly compression?: "gzip" | "none";
}

type OtlpConfig = NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>;

export interface TracingOptions extends Omit<RunTracerOptions, "tracerProvider"> {
  /** `service.name` of the resource (default "bridle"). */
  readonly serviceName?: string;
  readonly resourceAttributes?: Attributes;
  /** Append spans to this local JSONL file: traces with no collector. */
  readonly file?: string;
  /** Export over OTLP/HTTP (protobuf) to a collector: `true` for the environment's or default endpoint. */
  readonly otlp?: boolean | OtlpOptions;
  /** More exporters (an InMemorySpanExporter in tests, say). */
  readonly exporters?: readonly SpanExporter[];
  /**
   * Batch spans before export (default true). Off, each span is exported as it ends: for tests and short
   * commands that want every span out before they exit even without `shutdown`.
   */
  readonly batch?: boolean;
  /**
   * Told once per exporter, at its first failed export (a collector that is down, a file that cannot be
   * written). Tracing never fails a run; this is where an app says that traces are being lost.
   */
  readonly onExportFailure?: (failure: { readonly exporter: string; readonly error: Error }) => void;
}

/** A tracer for runs, wired to its own tracer provider and exporters. */
export interface Tracing {
  readonly tracer: RunTracer;
  readonly provider: TracerProvider;
  /** Exports every span ended so far. */
  forceFlush(): Promise<void>;
  /** Ends any span still open, exports everything and stops the exporters. */
  shutdown(): Promise<void>;
}

/**
 * Sets up tracing without touching OpenTelemetry's globals: a provider with a `service.name` resource, the
 * chosen exporters, and a RunTracer writing to it. Apps that already run the OpenTelemetry SDK use
 * `new RunTracer()` instead, which writes to the global provider.
 */
export function createTracing(options: TracingOptions = {}): Tracing {
  const exporters: SpanExporter[] = [...(options.exporters ?? [])];
  if (options.file) exporters.push(new JsonlSpanExporter(options.file));
  if (options.otlp) {
    const otlp = options.otlp === true ? {} : options.otlp;
    const config: OtlpConfig = {
      ...(otlp.url ? { url: otlp.url } : {}),
      ...(otlp.headers ? { headers: { ...otlp.headers } } : {}),
      ...(otlp.timeoutMillis ? { timeoutMillis: otlp.timeoutMillis } : {}),
      // The exporter's enum holds exactly these two strings.
      ...(otlp.compression ? { compression: otlp.compression as OtlpConfig["compression"] } : {}),
    };
    exporters.push(new OTLPTraceExporter(config));
  }
  const batch = options.batch ?? true;
  const report = options.onExportFailure;
  const wrapped = report ? exporters.map((exporter) => new ReportingExporter(exporter, report)) : exporters;
  const spanProcessors: SpanProcessor[] = wrapped.map((exporter) =>
    batch ? new BatchSpanProcessor({ exporter }) : new SimpleSpanProcessor({ exporter }),
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": options.serviceName ?? "bridle",
      ...options.resourceAttributes,
    }),
    spanProcessors,
  });
  const {
    serviceName: _s,
    resourceAttributes: _r,
    file: _f,
    otlp: _o,
    exporters: _e,
    batch: _b,
    onExportFailure: _x,
    ...rest
  } = options;
  const tracer = new RunTracer({ ...rest, tracerProvider: provider });
  return {
    tracer,
    provider,
    forceFlush: () => provider.forceFlush(),
    shutdown: async () => {
      tracer.endAll("shutdown");
      await provider.shutdown();
    },
  };
}

/** Passes everything through to an exporter, reporting its first failed export. */
class ReportingExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #report: NonNullable<TracingOptions["onExportFailure"]>;
  #reported = false;

  constructor(inner: SpanExporter, report: NonNullable<TracingOptions["onExportFailure"]>) {
    this.#inner = inner;
    this.#report = report;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.#inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS && !this.#reported) {
        this.#reported = true;
        try {
          this.#report({
            exporter: this.#inner.constructor.name,
            error: result.error ?? new Error("the export failed"),
          });
        } catch {
          // A reporter that throws must not break the exporter's callback chain.
        }
      }
      resultCallback(result);
    });
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }
}
