import type { ModelInfo } from "@bridle/core";
import type { ModelTable } from "@bridle/provider-kit";

// Both OpenAI adapters send reasoning effort, images and a native JSON-schema output; what each model
// takes is below. Prices are the standard tier, US dollars per million tokens.
const CHECKED = "2026-11-24";

function row(
  contextWindow: number,
  maxOutputTokens: number,
  price: NonNullable<ModelInfo["price"]>,
  capabilities: { images: boolean; reasoning: boolean },
): ModelInfo {
  return {
    contextWindow,
    maxOutputTokens,
    price,
    capabilities: { ...capabilities, structuredOutput: true },
    checked: CHECKED,
  };
}

const reasoner = { images: true, reasoning: true };
const plain = { images: true, reasoning: false };

/**
 * OpenAI models by exact name (a dated snapshot such as gpt-4o-2024-08-06 finds its alias's row); each
 * row's `checked` is the day it was last compared with OpenAI's model and pricing pages. A model missing
 * here has no `info` and no `cost()`, and its requests carry a `model_unknown` warning: add it with the
 * `models` option rather than have it priced as a neighbour.
 */
export const openaiModels: ModelTable = Object.freeze({
  "gpt-5": row(400_000, 128_000, { input: 1.25, output: 10, cacheRead: 0.125 }, reasoner),
  "gpt-5-mini": row(400_000, 128_000, { input: 0.25, output: 2, cacheRead: 0.025 }, reasoner),
  "gpt-5-nano": row(400_000, 128_000, { input: 0.05, output: 0.4, cacheRead: 0.005 }, reasoner),
  "gpt-4.1": row(1_047_576, 32_768, { input: 2, output: 8, cacheRead: 0.5 }, plain),
  "gpt-4.1-mini": row(1_047_576, 32_768, { input: 0.4, output: 1.6, cacheRead: 0.1 }, plain),
  "gpt-4.1-nano": row(1_047_576, 32_768, { input: 0.1, output: 0.4, cacheRead: 0.025 }, plain),
  "gpt-4o": row(128_000, 16_384, { input: 2.5, output: 10, cacheRead: 1.25 }, plain),
  "gpt-4o-mini": row(128_000, 16_384, { input: 0.15, output: 0.6, cacheRead: 0.075 }, plain),
  o3: row(200_000, 100_000, { input: 2, output: 8, cacheRead: 0.5 }, reasoner),
  "o4-mini": row(200_000, 100_000, { input: 1.1, output: 4.4, cacheRead: 0.275 }, reasoner),
});
