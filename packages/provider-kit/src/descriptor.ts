import type { Model, Usage } from "@bridle/core";
import type { ModelTable } from "./model-table.js";

/** A model that may know what a turn cost: `cost()` is undefined for a model without a priced row. */
export type CostedModel = Model & { cost?(usage: Usage): number | undefined };

/** What a front door (a CLI flag, a config file) settles before it asks a descriptor for a model. */
export interface DescribedModelOptions {
  /** The model name as the provider knows it. */
  readonly model: string;
  /** Defaults to the descriptor's `baseUrlVariable` in `env`, then the provider's public endpoint. */
  readonly baseURL?: string;
  /** Defaults to the first of the descriptor's `keyVariables` set in `env`. */
  readonly apiKey?: string;
  /** Rows added to (or overriding) the descriptor's `models`. */
  readonly models?: ModelTable;
  /** Longest silence before an attempt is abandoned as a retryable timeout (the adapter's default otherwise). */
  readonly idleTimeoutMs?: number;
  /** Where the key and base-URL variables are read (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * One provider as a front door lists it: how it is named and configured, what it knows, and how to make a
 * model of it. A recipe holds a list of these, so a new provider is one descriptor and one line there.
 */
export interface ProviderDescriptor {
  /** What `--provider` takes and what transcripts record ("openai", "anthropic"). */
  readonly name: string;
  /** For people: "OpenAI Responses", "Anthropic Messages". */
  readonly label: string;
  /** Environment variables holding the API key, the first set one winning. */
  readonly keyVariables: readonly string[];
  /**
   * Whether a request needs a key: "always" (the API takes none without one, whatever server it is sent
   * to), "without-base-url" (a base URL may name a local server that takes any key) or "client" (the
   * client it builds finds its own credentials, as an AI SDK provider package reads its own variables).
   */
  readonly keyNeeded: "always" | "without-base-url" | "client";
  /** The environment variable naming another server (a proxy, a compatible one). */
  readonly baseUrlVariable?: string;
  /** The model used when none is named; it has a row in `models`. */
  readonly defaultModel: string;
  /** The built-in model table (window, prices, capabilities, dated rows). */
  readonly models: ModelTable;
  /** Model names that belong to this provider (`/^claude-/i`); absent when any name may (a compatible server's). */
  readonly modelPattern?: RegExp;
  /** Throws a `BridleError` `invalid_config` for a missing key or a malformed base URL, before any request. */
  create(options: DescribedModelOptions): CostedModel;
}
