/**
 * How one OpenAI-compatible server differs from OpenAI's Chat Completions. Every field is optional; the
 * defaults suit OpenAI itself. Start from a preset in `chatCompat` and override what differs.
 */
export interface ChatCompat {
  /** The output-token limit's field: "max_completion_tokens" (OpenAI, default) or "max_tokens" (most others). */
  readonly maxTokensField?: "max_completion_tokens" | "max_tokens";
  /** The system prompt's role: "system" (default) or "developer" (OpenAI reasoning models). */
  readonly systemRole?: "system" | "developer";
  /** Ask for usage at the end of the stream with stream_options.include_usage (default true). */
  readonly streamUsage?: boolean;
  /** Send a requested reasoning effort as `reasoning_effort` (default true). */
  readonly reasoningEffort?: boolean;
  /**
   * Send the model's own earlier reasoning back in this assistant-message field (DeepSeek wants
   * `reasoning_content` back during tool use). Default: reasoning is not sent back.
   */
  readonly reasoningReplayField?: "reasoning_content" | "reasoning";
  /** Send `response_format` json_schema when the harness asks for structured output (default true). */
  readonly jsonSchema?: boolean;
  /**
   * Send the request's cache key (one per session) as `prompt_cache_key`, which OpenAI, DeepSeek and
   * Mistral route their prompt caches by (default true); local servers have no use for it.
   */
  readonly promptCacheKey?: boolean;
}

/** Known servers' differences. */
export const chatCompat = Object.freeze({
  openai: {} satisfies ChatCompat,
  openrouter: { maxTokensField: "max_tokens" } satisfies ChatCompat,
  vllm: { maxTokensField: "max_tokens", reasoningEffort: false, promptCacheKey: false } satisfies ChatCompat,
  ollama: {
    maxTokensField: "max_tokens",
    reasoningEffort: false,
    promptCacheKey: false,
  } satisfies ChatCompat,
  llamacpp: {
    maxTokensField: "max_tokens",
    reasoningEffort: false,
    promptCacheKey: false,
  } satisfies ChatCompat,
  deepseek: {
    maxTokensField: "max_tokens",
    reasoningEffort: false,
    reasoningReplayField: "reasoning_content",
  } satisfies ChatCompat,
});
