import { findCutPoint, summarize, summaryMessage, worthCompacting } from "./compaction.js";
import type { ContextSettings, ContextTracker } from "./context.js";
import type { Model } from "./model.js";
import type { RunContext } from "./run-context.js";
import { estimateTextTokens } from "./token-estimate.js";

export type CompactionOutcome = "compacted" | "aborted" | { readonly failed: string };

/**
 * One run's compaction: before a request when the transcript passes the threshold share of the context
 * window, and once after a provider's context overflow. Holds the run's token tracker.
 */
export class RunCompaction {
  readonly #settings: ContextSettings;
  readonly #model: Model;
  readonly #context: RunContext;
  readonly #tracker: ContextTracker;
  /** Estimated tokens of what every request carries besides the messages and system prompt. */
  readonly #schemaTokens: number;

  constructor(
    settings: ContextSettings,
    model: Model,
    context: RunContext,
    tracker: ContextTracker,
    schemaTokens: number,
  ) {
    this.#settings = settings;
    this.#model = model;
    this.#context = context;
    this.#tracker = tracker;
    this.#schemaTokens = schemaTokens;
  }

  /** After a model turn: what the provider counted, so the next estimate starts from it. */
  report(inputTokens: number, outputTokens: number): void {
    this.#tracker.report(inputTokens, outputTokens, this.#context.transcript.messages.length);
  }

  /** Compacts before a request when the transcript passes the threshold share of the context window. */
  async ifNeeded(system: string | undefined): Promise<CompactionOutcome | undefined> {
    const settings = this.#settings.compaction;
    if (!settings) return undefined;
    const tokens = this.#tokensInUse(system);
    const tracker = this.#tracker;
    if (tokens < settings.contextWindow * settings.threshold || !tracker.mayRetry(tokens)) return undefined;
    const outcome = await this.compact("threshold", system, tokens);
    // A summary that failed is not asked for again on every turn: only once the transcript grew a bit.
    if (typeof outcome === "object") tracker.failedAt(tokens, Math.ceil(settings.contextWindow * 0.05));
    return outcome;
  }

  /**
   * Replaces the older part of the transcript with a summary the model writes. The recent turns (after an
   * overflow, half as many tokens of them) and any call still waiting for its result are kept; the
   * `compaction` event records it, so the transcript projection, stores, resume and forks all see it.
   */
  async compact(
    reason: "threshold" | "overflow",
    system: string | undefined,
    tokensBefore?: number,
  ): Promise<CompactionOutcome> {
    const settings = this.#settings.compaction;
    if (!settings) return { failed: "compaction is off" };
    const context = this.#context;
    const messages = context.transcript.messages;
    const before = tokensBefore ?? this.#tokensInUse(system);
    const keep =
      reason === "overflow" ? Math.floor(settings.keepRecentTokens / 2) : settings.keepRecentTokens;
    const cut = findCutPoint(messages, keep, this.#settings.estimate);
    if (cut === undefined || !worthCompacting(messages, cut)) {
      return { failed: "there is nothing before the most recent turn to summarize" };
    }
    const outcome = await summarize({
      model: settings.model ?? this.#model,
      messages: messages.slice(0, cut),
      instructions: settings.instructions,
      // The summarizer gets a text rendering bounded to a share of the window, whatever the history holds.
      maxChars: Math.max(8_000, Math.floor(settings.contextWindow * 0.6 * 4)),
      maxOutputTokens: settings.maxSummaryTokens,
      signal: context.signal,
    });
    context.addTokens(outcome.usage);
    if (context.signal.aborted) return "aborted";
    if (!outcome.ok) return { failed: `the summary request failed: ${outcome.error.message}` };
    context.emit({
      type: "compaction",
      replacedCount: cut,
      summary: summaryMessage(outcome.summary),
      tokensBefore: before,
      reason,
      usage: outcome.usage,
    });
    this.#tracker.reset();
    return "compacted";
  }

  #tokensInUse(system: string | undefined): number {
    const fixed = estimateTextTokens(system ?? "") + this.#schemaTokens;
    return this.#tracker.tokens(this.#context.transcript.messages, fixed);
  }
}
