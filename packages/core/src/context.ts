import { z } from "zod";
import { DEFAULT_SUMMARY_INSTRUCTIONS } from "./compaction.js";
import { BridleError } from "./errors.js";
import { DEFAULT_INSTRUCTIONS, type InstructionsSettings } from "./instructions.js";
import type { Message } from "./messages.js";
import type { Model } from "./model.js";
import { DEFAULT_SPILL, type SpillSettings } from "./spill.js";
import { estimateTokens, type TokenEstimator } from "./token-estimate.js";

export interface CompactionOptions {
  /** Compact before a request once this share of the context window is used (default 0.8). */
  readonly threshold?: number;
  /** Tokens of the most recent turns kept word for word (default: a quarter of the window, at most 20 000). */
  readonly keepRecentTokens?: number;
  /** The model that writes summaries (default: the harness's model). */
  readonly model?: Model;
  /** The summarizer's system prompt. */
  readonly instructions?: string;
  /** Output tokens a summary may use (default 4 096). */
  readonly maxSummaryTokens?: number;
}

export interface ContextOptions {
  /** The model's context window in tokens (needed for compaction). */
  readonly contextWindow?: number;
  /**
   * Summarize older turns when the transcript nears the context window, and once after a provider's
   * `context_overflow` error (then the request is retried once). Off unless given.
   */
  readonly compaction?: boolean | CompactionOptions;
  /**
   * Tool results whose text passes `maxChars` are written to a file; the model gets the head, the tail and
   * the path. On by default (100 000 characters, in `.bridle/tool-output` under the workspace root).
   */
  readonly spill?: false | Partial<SpillSettings>;
  /** Read AGENTS.md (and the like) at run start and append them to the system prompt. Off unless given. */
  readonly instructions?: boolean | Partial<InstructionsSettings>;
  /** Per-message token estimate (default: about four characters a token). */
  readonly estimateTokens?: TokenEstimator;
}

/** Compaction settings with every default filled in. */
export interface CompactionSettings {
  readonly contextWindow: number;
  readonly threshold: number;
  readonly keepRecentTokens: number;
  readonly model: Model | undefined;
  readonly instructions: string;
  readonly maxSummaryTokens: number;
}

export interface ContextSettings {
  readonly compaction: CompactionSettings | undefined;
  readonly spill: SpillSettings | undefined;
  readonly instructions: InstructionsSettings | undefined;
  readonly estimate: TokenEstimator;
}

const positiveInt = z.number().int().positive();
const compactionSchema = z
  .object({
    threshold: z.number().gt(0).lte(1).optional(),
    keepRecentTokens: z.number().int().nonnegative().optional(),
    instructions: z.string().min(1).optional(),
    maxSummaryTokens: positiveInt.optional(),
  })
  .passthrough();
const spillSchema = z
  .object({
    maxChars: positiveInt.optional(),
    headChars: z.number().int().nonnegative().optional(),
    tailChars: z.number().int().nonnegative().optional(),
    dir: z.string().min(1).optional(),
  })
  .strict();
const instructionsSchema = z
  .object({ files: z.array(z.string().min(1)).min(1).optional(), maxBytes: positiveInt.optional() })
  .strict();

/** Validates the context options once, when the harness is built. */
export function contextSettings(options: ContextOptions | undefined): ContextSettings {
  const invalid = (what: string, error: z.ZodError) =>
    new BridleError(
      "invalid_config",
      `invalid ${what}: ${error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`,
    );
  let compaction: CompactionSettings | undefined;
  if (options?.compaction) {
    const given = options.compaction === true ? {} : options.compaction;
    const parsed = compactionSchema.safeParse(given);
    if (!parsed.success) throw invalid("compaction options", parsed.error);
    const window = options.contextWindow;
    if (window === undefined || !Number.isInteger(window) || window <= 0) {
      throw new BridleError(
        "invalid_config",
        "compaction needs context.contextWindow (the model's context window in tokens)",
      );
    }
    const keep = given.keepRecentTokens ?? Math.min(20_000, Math.floor(window / 4));
    const threshold = given.threshold ?? 0.8;
    if (keep >= window * threshold) {
      throw new BridleError(
        "invalid_config",
        `keepRecentTokens (${keep}) must be below the compaction threshold (${Math.floor(window * threshold)} tokens)`,
      );
    }
    compaction = {
      contextWindow: window,
      threshold,
      keepRecentTokens: keep,
      model: given.model,
      instructions: given.instructions ?? DEFAULT_SUMMARY_INSTRUCTIONS,
      maxSummaryTokens: given.maxSummaryTokens ?? 4_096,
    };
  }
  let spill: SpillSettings | undefined;
  if (options?.spill !== false) {
    const parsed = spillSchema.safeParse(options?.spill ?? {});
    if (!parsed.success) throw invalid("spill options", parsed.error);
    spill = { ...DEFAULT_SPILL, ...stripUndefined(parsed.data) };
    if (spill.headChars + spill.tailChars >= spill.maxChars) {
      throw new BridleError("invalid_config", "spill headChars + tailChars must be below maxChars");
    }
  }
  let instructions: InstructionsSettings | undefined;
  if (options?.instructions) {
    const parsed = instructionsSchema.safeParse(options.instructions === true ? {} : options.instructions);
    if (!parsed.success) throw invalid("instructions options", parsed.error);
    instructions = { ...DEFAULT_INSTRUCTIONS, ...stripUndefined(parsed.data) };
  }
  return { compaction, spill, instructions, estimate: options?.estimateTokens ?? estimateTokens };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * One run's running token count of its transcript. The transcript only grows between compactions, so
 * each message is counted once, when it first appears; a compaction starts the count again.
 */
export class ContextTracker {
  readonly #estimate: TokenEstimator;
  #counted = 0;
  #total = 0;
  /** The provider's own count at the last response (input + output tokens) and the length it covered. */
  #reported: { readonly tokens: number; readonly length: number } | undefined;
  /** After a failed summary, compaction waits until the transcript grows past this many tokens. */
  #retryAbove = 0;

  constructor(estimate: TokenEstimator) {
    this.#estimate = estimate;
  }

  /** Tokens the transcript holds (estimated; the provider's figure when it reported a larger one). */
  tokens(messages: readonly Message[], fixed: number): number {
    if (messages.length < this.#counted) this.reset();
    for (let i = this.#counted; i < messages.length; i++)
      this.#total += this.#estimate(messages[i] as Message);
    this.#counted = messages.length;
    const estimated = this.#total + fixed;
    const reported = this.#reported;
    if (!reported || reported.length > messages.length) return estimated;
    let since = 0;
    for (let i = reported.length; i < messages.length; i++) since += this.#estimate(messages[i] as Message);
    return Math.max(estimated, reported.tokens + since);
  }

  /** Records the provider's usage for a response that made the transcript `length` messages long. */
  report(inputTokens: number, outputTokens: number, length: number): void {
    if (inputTokens > 0) this.#reported = { tokens: inputTokens + outputTokens, length };
  }

  reset(): void {
    this.#counted = 0;
    this.#total = 0;
    this.#reported = undefined;
  }

  failedAt(tokens: number, step: number): void {
    this.#retryAbove = tokens + step;
  }

  mayRetry(tokens: number): boolean {
    return tokens > this.#retryAbove;
  }
}
