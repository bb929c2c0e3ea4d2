import {
  DEFAULT_SUMMARY_INSTRUCTIONS,
  findCutPoint,
  statedContextLimit,
  summarize,
  summaryMessage,
  worthCompacting,
} from "./compaction.js";
import { beforeCompaction } from "./compaction-hook.js";
import type { ContextSettings, ContextTracker } from "./context.js";
import type { RunHooks } from "./hooks.js";
import type { Model, ModelError } from "./model.js";
import type { RunContext } from "./run-context.js";
import { CHARS_PER_TOKEN, estimateMessagesTokens, estimateTextTokens } from "./token-estimate.js";

// The share of the limit left free: estimates are rough, and the response needs room of its own.
const MARGIN = 0.15;
// After an overflow with no stated limit, all that is known is that the request was too big: aim lower.
const OVERFLOW_SHRINK = 0.5;

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
  /** The context window, lowered to what an overflow showed (a stated limit, or the size that failed). */
  #window: number;
  /** Provider tokens per estimated token, when an overflow stated the request's real size. */
  #scale = 1;
  readonly #hooks: RunHooks | undefined;

  constructor(
    settings: ContextSettings,
    model: Model,
    context: RunContext,
    tracker: ContextTracker,
    schemaTokens: number,
    hooks?: RunHooks,
  ) {
    this.#hooks = hooks;
    this.#settings = settings;
    this.#model = model;
    this.#context = context;
    this.#tracker = tracker;
    this.#schemaTokens = schemaTokens;
    this.#window = settings.compaction?.contextWindow ?? 0;
  }

  /** After a model turn: what the provider counted, so the next estimate starts from it. */
  report(inputTokens: number, outputTokens: number): void {
    this.#tracker.report(inputTokens, outputTokens, this.#context.transcript.messages.length);
  }

  /** Compacts before a request when the transcript passes the threshold share of the context window. */
  async ifNeeded(system: string | undefined): Promise<CompactionOutcome | undefined> {
    const settings = this.#settings.compaction;
    if (!settings) return undefined;
    const tracker = this.#tracker;
    // In the provider's tokens: its own count where it gave one, else the estimate scaled by what an
    // overflow showed of how far the estimate falls short.
    const tokens = this.#scale === 1 ? this.#tokensInUse(system) : this.#providerTokens(system);
    const window = this.#window;
    if (tokens < window * settings.threshold || !tracker.mayRetry(tokens)) return undefined;
    const outcome = await this.compact("threshold", system, tokens);
    // A summary that failed is not asked for again on every turn: only once the transcript grew a bit.
    if (typeof outcome === "object") tracker.failedAt(tokens, Math.ceil(window * 0.05));
    return outcome;
  }

  /**
   * Replaces the older part of the transcript with a summary the model writes. The recent turns and any
   * call still waiting for its result are kept; the `compaction` event records it, so the transcript
   * projection, stores, resume and forks all see it. After an overflow (`error`), the limit the provider
   * stated (or, when it stated none, the size that failed) becomes the run's window, less a margin. A
   * summary that would not leave the context smaller than it was is never applied.
   */
  async compact(
    reason: "threshold" | "overflow",
    system: string | undefined,
    tokensBefore?: number,
    error?: ModelError,
  ): Promise<CompactionOutcome> {
    const settings = this.#settings.compaction;
    if (!settings) return { failed: "compaction is off" };
    const context = this.#context;
    const messages = context.transcript.messages;
    const fixed = this.#fixedTokens(system);
    const estimated = fixed + estimateMessagesTokens(messages, this.#settings.estimate);
    const before = tokensBefore ?? this.#tokensInUse(system);
    if (error) this.#learn(error, estimated);
    const room = this.#room();
    // With no limit stated, an overflow shrinks what compaction can shrink (the messages), not the system
    // prompt and tools, which stay as they are: the target is never below them.
    const target =
      reason === "overflow"
        ? Math.min(room, fixed + Math.floor((estimated - fixed) * OVERFLOW_SHRINK))
        : room;
    const summaryTokens = Math.max(1, Math.min(settings.maxSummaryTokens, Math.floor((target - fixed) / 4)));
    const tailRoom = target - fixed - summaryTokens;
    if (tailRoom <= 0) {
      return {
        failed: `the system prompt and tool definitions alone take about ${fixed} of the ${target} tokens a request may hold`,
      };
    }
    const wanted =
      reason === "overflow" ? Math.floor(settings.keepRecentTokens / 2) : settings.keepRecentTokens;
    const cut = findCutPoint(messages, Math.min(wanted, tailRoom), this.#settings.estimate);
    if (cut === undefined || !worthCompacting(messages, cut)) {
      return { failed: "there is nothing before the most recent turn to summarize" };
    }
    if (this.#hooks) {
      const given = settings.instructions === DEFAULT_SUMMARY_INSTRUCTIONS ? "" : settings.instructions;
      const verdict = await beforeCompaction(this.#hooks, "auto", given);
      if (context.signal.aborted) return "aborted";
      if (verdict.blocked) return { failed: `a before_compaction hook blocked it: ${verdict.reason}` };
    }
    const outcome = await summarize({
      model: settings.model ?? this.#model,
      messages: messages.slice(0, cut),
      instructions: settings.instructions,
      // The summarizer's own request must fit: its history text is bounded to a share of the room.
      maxChars: Math.max(2_000, Math.floor(room * 0.6) * CHARS_PER_TOKEN),
      maxOutputTokens: summaryTokens,
      signal: context.signal,
    });
    context.addTokens(outcome.usage);
    if (context.signal.aborted) return "aborted";
    if (!outcome.ok) return { failed: `the summary request failed: ${outcome.error.message}` };
    const summary = summaryMessage(outcome.summary);
    const after = fixed + estimateMessagesTokens([summary, ...messages.slice(cut)], this.#settings.estimate);
    if (after >= estimated) {
      return {
        failed: `the summary and the turns kept (about ${after} tokens) would not be smaller than the context was (about ${estimated})`,
      };
    }
    context.emit({
      type: "compaction",
      replacedCount: cut,
      summary,
      tokensBefore: before,
      reason,
      usage: outcome.usage,
    });
    this.#tracker.reset();
    return "compacted";
  }

  /** What an overflow says about the real limit, in estimated tokens' terms. */
  #learn(error: ModelError, estimated: number): void {
    const stated =
      error.contextLimit === undefined ? statedContextLimit(error.message) : { limit: error.contextLimit };
    if (stated.requested !== undefined && estimated > 0)
      this.#scale = Math.max(this.#scale, stated.requested / estimated);
    // Without a stated limit the request that failed is the best bound known.
    const limit = stated.limit ?? Math.floor(estimated * this.#scale);
    if (limit > 0) this.#window = Math.min(this.#window, limit);
  }

  /** Estimated tokens a request may hold: the window (as lowered by overflows), less the margin. */
  #room(): number {
    return Math.floor((this.#window / this.#scale) * (1 - MARGIN));
  }

  #providerTokens(system: string | undefined): number {
    const estimated =
      this.#fixedTokens(system) +
      estimateMessagesTokens(this.#context.transcript.messages, this.#settings.estimate);
    return Math.max(this.#tokensInUse(system), Math.ceil(estimated * this.#scale));
  }

  #fixedTokens(system: string | undefined): number {
    return estimateTextTokens(system ?? "") + this.#schemaTokens;
  }

  #tokensInUse(system: string | undefined): number {
    return this.#tracker.tokens(this.#context.transcript.messages, this.#fixedTokens(system));
  }
}
