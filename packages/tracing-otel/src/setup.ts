import type { Attributes } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
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
  const spanProcessors: SpanProcessor[] = exporters.map((exporter) =>
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
