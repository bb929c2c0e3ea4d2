import type { ModelPrice, Usage } from "@bridle/core";

/**
 * What a turn cost in US dollars. `inputTokens` includes the cached parts, so the uncached rest is billed
 * at the input price and each cached part at its own; reasoning tokens are already inside `outputTokens`.
 */
export function costOf(usage: Usage, price: ModelPrice): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const dollars =
    uncached * price.input +
    usage.cacheReadTokens * (price.cacheRead ?? price.input) +
    usage.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return dollars / 1_000_000;
}
