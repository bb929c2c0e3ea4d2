export { ATTR, EVENT, OPERATION } from "./attributes.js";
export {
  type Captured,
  type ContentCaptureOptions,
  capJson,
  capJsonText,
  capMessages,
  DEFAULT_CONTENT_MAX_LENGTH,
  finishReason,
  truncateText,
} from "./content.js";
export { JsonlSpanExporter, readTraceFile, type TraceRecord, toTraceRecord } from "./jsonl-exporter.js";
export {
  INSTRUMENTATION_NAME,
  INSTRUMENTATION_VERSION,
  RunTracer,
  type RunTracerOptions,
} from "./run-tracer.js";
export { createTracing, type OtlpOptions, type Tracing, type TracingOptions } from "./setup.js";
export { conventionProviderName } from "./span-attributes.js";
export { type McpToolName, parseMcpToolName } from "./tool-kind.js";
export { formatTraceTree } from "./trace-tree.js";
