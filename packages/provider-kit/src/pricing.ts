import type { Usage } from "@bridle/core";

/** Prices in US dollars per million tokens. Cache prices default to the input price when absent. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

/** Model name (or name prefix, such as "gpt-4o" for "gpt-4o-2024-08-06") to price. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** A table with `extra` entries added to (and overriding) `base`. */
export function extendPrices(base: PriceTable, extra: PriceTable | undefined): PriceTable {
  return Object.freeze({ ...base, ...extra });
}

/** The price of `model`: an exact entry, else the longest entry the name starts with. */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  const exact = table[model];
  if (exact) return exact;
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

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
