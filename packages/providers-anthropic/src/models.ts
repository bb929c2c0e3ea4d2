import type { ModelInfo } from "@bridle/core";
import type { ModelTable } from "@bridle/provider-kit";

const CHECKED = "2026-11-24";

/** Cache writes at the 5-minute rate (1.25× input) and cache reads at 0.1× input, unless given. */
function row(
  contextWindow: number,
  maxOutputTokens: number,
  input: number,
  output: number,
  capabilities: { reasoning: boolean; structuredOutput: boolean },
  cache: { read: number; write: number } = { read: input / 10, write: input * 1.25 },
): ModelInfo {
  return {
    contextWindow,
    maxOutputTokens,
    price: { input, output, cacheRead: cache.read, cacheWrite: cache.write },
    capabilities: { images: true, ...capabilities },
    checked: CHECKED,
  };
}

const thinking = { reasoning: true, structuredOutput: false };
const thinkingStructured = { reasoning: true, structuredOutput: true };

/**
 * Anthropic models by exact name (a dated snapshot such as claude-haiku-4-5-20251001 finds its alias's
 * row), US dollars per million tokens; each row's `checked` is the day it was last compared with
 * Anthropic's models overview and pricing pages. The capabilities are the model's: this adapter does not
 * send a native output schema yet, so `info` offers no structured output whatever the row says. A model
 * missing here (claude-opus-4-6, say) has no `info` and no `cost()`, and its requests carry a
 * `model_unknown` warning: add it with the `models` option rather than have it priced as a neighbour.
 */
export const anthropicModels: ModelTable = Object.freeze({
  "claude-sonnet-4-6": row(1_000_000, 64_000, 3, 15, thinkingStructured),
  "claude-opus-4-5": row(200_000, 64_000, 5, 25, thinkingStructured),
  "claude-opus-4-1": row(200_000, 32_000, 15, 75, thinkingStructured),
  "claude-opus-4-0": row(200_000, 32_000, 15, 75, thinking),
  // The first Claude 4 snapshots are named without the "-0" (claude-opus-4-20250514).
  "claude-opus-4": row(200_000, 32_000, 15, 75, thinking),
  "claude-sonnet-4-5": row(200_000, 64_000, 3, 15, thinkingStructured),
  "claude-sonnet-4-0": row(200_000, 64_000, 3, 15, thinking),
  "claude-sonnet-4": row(200_000, 64_000, 3, 15, thinking),
  "claude-haiku-4-5": row(200_000, 64_000, 1, 5, thinkingStructured),
  "claude-3-7-sonnet": row(200_000, 64_000, 3, 15, thinking),
  "claude-3-5-haiku": row(200_000, 8_192, 0.8, 4, { reasoning: false, structuredOutput: false }),
  "claude-3-haiku": row(
    200_000,
    4_096,
    0.25,
    1.25,
    { reasoning: false, structuredOutput: false },
    { read: 0.03, write: 0.3 },
  ),
});
