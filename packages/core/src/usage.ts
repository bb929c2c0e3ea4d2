/**
 * Token accounting for one model turn or a whole run. `inputTokens` counts every prompt token, cached or
 * not; `cacheReadTokens` and `cacheWriteTokens` are the parts of it read from or written to a prompt cache.
 * Adapters normalize to this (Anthropic reports cache tokens apart from input_tokens; OpenAI includes them).
 */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
}

export const emptyUsage: Usage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
});

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}

/** Counters for one run. */
export interface RunUsage {
  readonly modelRequests: number;
  readonly toolCalls: number;
  readonly cancelledToolCalls: number;
  /** Model-correctable failures per tool name, counted against each tool's retry budget. */
  readonly toolRetries: Readonly<Record<string, number>>;
  /** Corrective turns asked for after invalid structured output (absent before the first one). */
  readonly outputRetries?: number;
  readonly tokens: Usage;
}
