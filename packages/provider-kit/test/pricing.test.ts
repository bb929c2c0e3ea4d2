import type { ModelInfo } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { costOf, modelInfoOf } from "../src/index.js";

const info = (input: number): ModelInfo => ({
  contextWindow: 200_000,
  maxOutputTokens: 32_000,
  price: { input, output: input * 5 },
  capabilities: { images: true, reasoning: true, structuredOutput: false },
  checked: "2026-11-24",
});

describe("model rows", () => {
  const table = { "claude-opus-4": info(15), "claude-opus-4-5": info(5), "gpt-4o": info(2.5) };

  it("finds an exact name, and a dated snapshot or -latest by its alias's row", () => {
    expect(modelInfoOf(table, "claude-opus-4-5")?.price?.input).toBe(5);
    expect(modelInfoOf(table, "claude-opus-4-20250514")?.price?.input).toBe(15);
    expect(modelInfoOf(table, "gpt-4o-2024-08-06")?.price?.input).toBe(2.5);
    expect(modelInfoOf(table, "gpt-4o-latest")?.price?.input).toBe(2.5);
  });

  it("finds the one dated snapshot of an alias that has no row of its own, and none of two", () => {
    const dated = {
      "claude-3-7-sonnet-20250219": info(3),
      "claude-3-5-sonnet-20240620": info(3),
      "claude-3-5-sonnet-20241022": info(4),
    };
    expect(modelInfoOf(dated, "claude-3-7-sonnet")?.price?.input).toBe(3);
    expect(modelInfoOf(dated, "claude-3-7-sonnet-latest")?.price?.input).toBe(3);
    expect(modelInfoOf(dated, "claude-3-5-sonnet-20241022")?.price?.input).toBe(4);
    expect(modelInfoOf(dated, "claude-3-5-sonnet")).toBeUndefined();
    expect(modelInfoOf(dated, "claude-3-7")).toBeUndefined();
  });

  it("never lends a neighbour's row by prefix", () => {
    expect(modelInfoOf(table, "claude-opus-4-6")).toBeUndefined();
    expect(modelInfoOf(table, "claude-opus-4-5-fast")).toBeUndefined();
    expect(modelInfoOf(table, "gpt-4o-mini")).toBeUndefined();
    expect(modelInfoOf(table, "gpt-4o-mini-2024-07-18")).toBeUndefined();
    expect(modelInfoOf(table, "constructor")).toBeUndefined();
    expect(modelInfoOf(table, "__proto__")).toBeUndefined();
  });
});

describe("costs", () => {
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
