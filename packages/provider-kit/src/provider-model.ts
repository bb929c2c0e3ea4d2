import type {
  Model,
  ModelCapabilities,
  ModelEvent,
  ModelInfo,
  ModelOptions,
  ModelRequest,
  ModelWarning,
  Usage,
} from "@bridle/core";
import { type ClassifiedError, classifyError } from "./errors.js";
import { type ModelTable, modelInfoOf } from "./model-table.js";
import { costOf } from "./pricing.js";
import { type RetryPolicy, retryPolicy } from "./retry.js";
import { retryingStream, type StreamAttempt } from "./stream-runner.js";

/** Connection settings every adapter takes. Every field is optional. */
export interface ProviderConnectionOptions {
  /** Defaults to the provider's standard environment variable. */
  readonly apiKey?: string;
  /** Defaults to the provider's standard environment variable, then its public endpoint. */
  readonly baseURL?: string;
  /** Extra headers on every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-attempt timeout in milliseconds (the SDKs' default is 10 minutes). */
  readonly timeoutMs?: number;
  /** Bridle's retry policy; the SDK's own retries are turned off in its favour. */
  readonly retry?: Partial<RetryPolicy>;
  /**
   * Rows added to (or overriding) the adapter's model table, for a model it does not know (a local
   * server's, a new release) or a changed price. A model without a row has no `info` and no `cost()`.
   */
  readonly models?: ModelTable;
  /**
   * Longest silence (no response, no stream event) before an attempt is abandoned as a retryable
   * `timeout` (default 120 000 ms). It catches connections that stall without closing.
   */
  readonly idleTimeoutMs?: number;
  /** Where the key and base-URL variables are read (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * What the adapters share: identity, the model's row (`info`) and `cost()`, and `stream()` running the
 * adapter's single attempt under the retry policy with the Model contract kept (never throws, one
 * terminal event). A request option the model's row says it cannot honour is left out of the request and
 * reported in a `warning` event, as is a model with no row or no price.
 */
export abstract class ProviderModel<Raw> implements Model {
  readonly provider: string;
  readonly model: string;
  readonly models: ModelTable;
  readonly info: ModelInfo | undefined;
  readonly retry: RetryPolicy;
  readonly idleTimeoutMs: number;

  /**
   * `offered` lowers the row's capabilities to what this adapter implements (an adapter that never sends
   * a native output schema offers no `structuredOutput`, whatever the model can do).
   */
  protected constructor(
    identity: { readonly provider: string; readonly model: string },
    builtInModels: ModelTable,
    options: ProviderConnectionOptions,
    offered: Partial<ModelCapabilities> = {},
  ) {
    this.provider = identity.provider;
    this.model = identity.model;
    this.models = Object.freeze({ ...builtInModels, ...options.models });
    this.info = withOffered(modelInfoOf(this.models, this.model), offered);
    this.retry = retryPolicy(options.retry);
    this.idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
  }

  /** What `usage` cost in US dollars, or undefined when the model's row has no price (or there is no row). */
  cost(usage: Usage): number | undefined {
    const price = this.info?.price;
    return price ? costOf(usage, price) : undefined;
  }

  stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const { warnings, options } = this.#honoured(request.options);
    const sent: ModelRequest = options === request.options ? request : { ...request, options };
    const events = retryingStream({
      signal: request.signal,
      policy: this.retry,
      idleTimeoutMs: this.idleTimeoutMs,
      prepare: () => this.prepare(),
      attempt: (signal) => this.attempt(sent, signal),
      classify: (error, signal) => this.classify(error, signal),
    });
    return warnings.length === 0 ? events : warnedStream(warnings, events);
  }

  /**
   * Waited for before each attempt, outside the idle clock: what the adapter needs before it can send (its
   * SDK, imported on first use). Nothing by default.
   */
  protected prepare(): Promise<unknown> {
    return Promise.resolve();
  }

  /** The options this model can honour, and a warning for each one dropped or each fact unknown. */
  #honoured(options: ModelOptions | undefined): {
    warnings: ModelWarning[];
    options: ModelOptions | undefined;
  } {
    const name = `${this.provider} model ${this.model}`;
    const info = this.info;
    if (!info) {
      const message = `${name} has no row in the adapter's model table: its context window, price and capabilities are unknown (cost unknown: no price for ${this.model}); add a row with the \`models\` option`;
      const own = options ? this.unhonoured(options) : [];
      return { warnings: [{ code: "model_unknown", message }, ...own], options };
    }
    const warnings: ModelWarning[] = [];
    if (!info.price) {
      warnings.push({ code: "price_unknown", message: `cost unknown: no price for ${this.model} (${name})` });
    }
    let honoured = options;
    if (options?.outputSchema && !info.capabilities.structuredOutput) {
      const { outputSchema: _, ...rest } = honoured ?? {};
      honoured = rest;
      warnings.push({
        code: "unsupported_setting",
        message: `${name} offers no native structured output: outputSchema was not sent (the harness still validates the answer)`,
      });
    }
    if (options?.reasoning && !info.capabilities.reasoning) {
      const { reasoning: _, ...rest } = honoured ?? {};
      honoured = rest;
      warnings.push({
        code: "unsupported_setting",
        message: `${name} does not reason: the reasoning setting was not sent`,
      });
    }
    if (honoured) warnings.push(...this.unhonoured(honoured));
    return { warnings, options: honoured };
  }

  /**
   * Options this adapter sends differently from how they were asked, for its own reasons (a wire-format
   * rule), each said rather than silently dropped. The default has none.
   */
  protected unhonoured(_options: ModelOptions): ModelWarning[] {
    return [];
  }

  /**
   * Classifies what an attempt threw. The default knows the openai and Anthropic SDKs' errors; an adapter
   * over another client whose errors are shaped differently (the AI SDK's) classifies its own.
   */
  protected classify(error: unknown, signal: AbortSignal): ClassifiedError {
    return classifyError(error, signal);
  }

  /** Sends one request and returns its raw events with their reader; may throw. */
  protected abstract attempt(request: ModelRequest, signal: AbortSignal): Promise<StreamAttempt<Raw>>;
}

/** An environment variable's value, unless it is unset or blank. */
export function envValue(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[name];
  return value?.trim() ? value : undefined;
}

function withOffered(
  info: ModelInfo | undefined,
  offered: Partial<ModelCapabilities>,
): ModelInfo | undefined {
  if (!info) return undefined;
  const capabilities = {
    images: info.capabilities.images && offered.images !== false,
    reasoning: info.capabilities.reasoning && offered.reasoning !== false,
    structuredOutput: info.capabilities.structuredOutput && offered.structuredOutput !== false,
  };
  return Object.freeze({ ...info, capabilities: Object.freeze(capabilities) });
}

async function* warnedStream(
  warnings: readonly ModelWarning[],
  events: AsyncIterable<ModelEvent>,
): AsyncIterable<ModelEvent> {
  for (const warning of warnings) yield { type: "warning", warning };
  yield* events;
}
