import { describe, expect, it } from "vitest";
import { costOf, extendPrices, priceOf } from "../src/index.js";

describe("prices", () => {
  const table = extendPrices(
    { "gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25 }, "gpt-4o-mini": { input: 0.15, output: 0.6 } },
    { "my-model": { input: 1, output: 2, cacheWrite: 3 } },
  );

  it("finds exact names, then the longest matching prefix", () => {
    expect(priceOf(table, "gpt-4o-mini-2024-07-18")?.input).toBe(0.15);
    expect(priceOf(table, "gpt-4o-2024-08-06")?.input).toBe(2.5);
    expect(priceOf(table, "my-model")?.cacheWrite).toBe(3);
    expect(priceOf(table, "unknown")).toBeUndefined();
  });

  it("bills cached input at its own price and the rest at the input price", () => {
    const usage = {
      inputTokens: 1_000_000,
      cacheReadTokens: 400_000,
      cacheWriteTokens: 100_000,
      outputTokens: 200_000,
      reasoningTokens: 50_000,
    };
    // 500k uncached * 1 + 400k read * 1 (falls back to input) + 100k write * 3 + 200k out * 2
    expect(costOf(usage, { input: 1, output: 2, cacheWrite: 3 })).toBeCloseTo(0.5 + 0.4 + 0.3 + 0.4, 10);
  });
});
