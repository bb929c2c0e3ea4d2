// --trace FILE and --otlp URL: OpenTelemetry spans of the run, as an observer beside the session record.
// A tracer never ends a run: what it cannot export is said once on stderr, and the run goes on.
import { resolve } from "node:path";
import { endpointOf } from "@bridle/coding-agent";
import type { EventObserver } from "@bridle/core";
import { CliError } from "../cli-error.js";
import type { CliFlags } from "../settings/args.js";
import type { Settings } from "../settings/config.js";

export interface TraceChoice {
  /** Local JSONL span file (appended), absolute. */
  readonly file?: string;
  /** OTLP/HTTP traces endpoint. */
  readonly otlp?: string;
}

export interface RunTracing {
  readonly observers: readonly EventObserver[];
  /** Ends spans left open and exports everything; never throws. */
  close(): Promise<void>;
}

/**
 * Takes the tracing flags out of the command line's flags (the rest are settings). A relative `--trace`
 * file starts where the person typed it, not in the workspace (`--cwd`), where it would count among the
 * agent's changes.
 */
export function splitTraceFlags(
  flags: CliFlags,
  typedIn: string = process.cwd(),
): { tracing: TraceChoice; rest: CliFlags } {
  const { trace, otlp, ...rest } = flags;
  return {
    tracing: {
      ...(trace ? { file: resolve(typedIn, trace) } : {}),
      ...(otlp ? { otlp: otlpUrl(otlp) } : {}),
    },
    rest,
  };
}

/** `--otlp http://host:4318` means the collector's traces endpoint there; a URL with a path is used as given. */
function otlpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`--otlp needs an http(s) URL, such as http://localhost:4318, not "${raw}"`, 2);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`--otlp needs an http(s) URL, not "${raw}"`, 2);
  }
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/v1/traces";
  return url.href;
}

/** Where the run's model requests go, by provider id, when the settings or environment name a server. */
export async function tracedEndpoints(
  agent: { readonly model: { readonly provider: string } },
  settings: Settings,
): Promise<Record<string, string>> {
  const endpoint = await endpointOf(settings, settings.providerPlugins);
  return endpoint ? { [agent.model.provider]: endpoint } : {};
}

const NO_TRACING: RunTracing = { observers: [], close: async () => {} };

/**
 * The tracer for a run (or a whole interactive session), or nothing when no flag asks for one. `endpoints`
 * maps a provider id to the base URL its requests go to (chat spans' `server.address` and `server.port`).
 */
export async function openTracing(
  choice: TraceChoice,
  endpoints: Readonly<Record<string, string>> = {},
): Promise<RunTracing> {
  if (!choice.file && !choice.otlp) return NO_TRACING;
  // Loaded only when asked for: OpenTelemetry's SDK is most of the tracing package's weight.
  const { createTracing } = await import("@bridle/tracing-otel");
  const tracing = createTracing({
    serviceName: "bridle",
    endpoints,
    ...(choice.file ? { file: choice.file } : {}),
    ...(choice.otlp ? { otlp: { url: choice.otlp, timeoutMillis: 5_000 } } : {}),
    onExportFailure: ({ error }) =>
      void process.stderr.write(`bridle: warning: traces are being lost: ${error.message.slice(0, 300)}\n`),
  });
  // A subagent's events reach the run's stream inside its spawning call's progress: unwrapped, its spans
  // nest under that call's.
  const { withSubagentEvents } = await import("@bridle/agents");
  const spans = withSubagentEvents({ write: (event) => tracing.tracer.observe(event) });
  return {
    observers: [{ name: "tracing", write: (event) => spans.write(event) }],
    close: async () => {
      try {
        await tracing.shutdown();
      } catch (error) {
        process.stderr.write(
          `bridle: warning: tracing did not shut down cleanly: ${(error as Error).message}\n`,
        );
      }
    },
  };
}
