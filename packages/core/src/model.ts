import type { AssistantMessage, Message } from "./messages.js";
import type { Usage } from "./usage.js";

/** A tool as the model sees it: name, description and the JSON Schema derived from the enforced schema. */
export interface ToolSchema {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** The tool's free-form input, for adapters that offer it (see `ToolInputFormat`). */
  readonly format?: ToolInputFormat;
}

/**
 * A free-form input an adapter may offer in place of JSON arguments (OpenAI Responses custom tools): the
 * model writes raw text in this grammar and the adapter hands it to the tool as `{ "input": text }`, so a
 * tool with a format takes `{ input: string }`. Adapters without free-form tools ignore it and send the
 * JSON Schema, which the same tool accepts.
 */
export interface ToolInputFormat {
  readonly type: "grammar";
  readonly syntax: "lark" | "regex";
  readonly definition: string;
}

export interface ModelOptions {
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** "auto" (default), "none", "required", or one tool's name. */
  readonly toolChoice?: "auto" | "none" | "required" | { readonly name: string };
  /** Reasoning effort or budget, interpreted by each adapter. */
  readonly reasoning?: {
    readonly effort?: "minimal" | "low" | "medium" | "high";
    readonly budgetTokens?: number;
  };
  /**
   * Ask for a final answer that is JSON matching this schema (OpenAI `response_format`/`text.format`
   * json_schema, for instance). Set by the harness in "native" structured-output mode; adapters without
   * native support may ignore it, since the harness validates the answer either way.
   */
  readonly outputSchema?: OutputSchemaRequest;
  /** Adapter-specific extras, passed through untouched. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface OutputSchemaRequest {
  /** A short identifier (^[A-Za-z0-9_-]{1,64}$), as providers require one. */
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the answer, derived from the zod schema the harness enforces. */
  readonly schema: Readonly<Record<string, unknown>>;
}

export interface ModelRequest {
  readonly system?: string;
  /** The whole conversation so far. Adapters must not keep or mutate it. */
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSchema[];
  readonly options?: ModelOptions;
  /**
   * The same for every request that shares a prefix (one session's, one subagent's within it): adapters
   * whose provider routes requests to its prompt cache by a key send it (OpenAI's `prompt_cache_key`), so
   * each turn lands where the previous one left the prefix. Never part of the prompt.
   */
  readonly cacheKey?: string;
  readonly signal: AbortSignal;
}

/** Why the model stopped its turn. */
export type ModelStopReason = "end_turn" | "tool_use" | "max_tokens" | "content_filter" | "refusal";

export type ModelErrorCode =
  | "aborted"
  | "auth"
  | "rate_limit"
  | "context_overflow"
  | "invalid_request"
  /** A 4xx input error the provider rejected (never retried). */
  | "bad_request"
  | "server"
  | "network"
  | "timeout"
  | "bad_response"
  | "unknown";

export interface ModelError {
  readonly code: ModelErrorCode;
  readonly message: string;
  readonly status?: number;
  readonly retryable: boolean;
  /**
   * For `context_overflow`: the input tokens the provider says a request may hold, when it says so in a
   * structured form. Without it, core reads the limit from the message (OpenAI's and Anthropic's state it).
   */
  readonly contextLimit?: number;
}

/** Prices in US dollars per million tokens. Cache prices default to the input price when absent. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

/** What the adapter offers for this model (not only what the provider's API could do). */
export interface ModelCapabilities {
  /** Image parts in user messages and tool results reach the model. */
  readonly images: boolean;
  /** `ModelOptions.reasoning` is honoured (effort or a thinking budget). */
  readonly reasoning: boolean;
  /** `ModelOptions.outputSchema` is sent as the provider's native JSON-schema output. */
  readonly structuredOutput: boolean;
}

/** One row of a provider package's model table: what is known about a model, and when it was checked. */
export interface ModelInfo {
  /** Tokens of input and output together that one request may hold. */
  readonly contextWindow: number;
  /** The most output tokens one response may have. */
  readonly maxOutputTokens: number;
  /** List price; absent for a model without one (a local server's). */
  readonly price?: ModelPrice;
  readonly capabilities: ModelCapabilities;
  /** The day (YYYY-MM-DD) the row was last compared with the provider's published figures. */
  readonly checked: string;
}

/**
 * Something an adapter could not do as asked or does not know, said instead of silently ignored:
 * "model_unknown" (no row for the model: window, price and capabilities unknown), "price_unknown" (a
 * row without a price), "unsupported_setting" (a request option this adapter cannot honour for it).
 */
export interface ModelWarning {
  readonly code: "model_unknown" | "price_unknown" | "unsupported_setting";
  readonly message: string;
}

/**
 * An attempt failed in a way worth repeating (a rate limit, a server error, a stalled stream) and the
 * adapter will try again after `delayMs`. Attempts are counted from 1: the one about to start is
 * `attempt` of at most `maxAttempts`.
 */
export interface ProviderRetry {
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly delayMs: number;
  /** Why the previous attempt failed. */
  readonly error: ModelError;
}

export type ModelEvent =
  | { readonly type: "text_delta"; readonly delta: string }
  /** Not a failure yet: the adapter waits, then tries again. Comes before any output of the request. */
  | { readonly type: "retry"; readonly retry: ProviderRetry }
  /** Not a failure: the request goes on. Comes before the request's other events. */
  | { readonly type: "warning"; readonly warning: ModelWarning }
  | { readonly type: "reasoning_delta"; readonly delta: string }
  | {
      readonly type: "tool_call_delta";
      readonly index: number;
      readonly id?: string;
      readonly name?: string;
      readonly argumentsDelta: string;
    }
  | {
      readonly type: "done";
      readonly message: AssistantMessage;
      readonly usage: Usage;
      readonly stopReason: ModelStopReason;
    }
  | { readonly type: "error"; readonly error: ModelError; readonly usage?: Usage };

/**
 * A stateless streaming adapter. `stream` never throws once invoked: every failure, including an abort,
 * arrives as one terminal `error` event; success ends with exactly one `done` event.
 */
export interface Model {
  readonly provider: string;
  readonly model: string;
  /** What the adapter's model table says about this model; undefined when it has no row for it. */
  readonly info?: ModelInfo;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}
