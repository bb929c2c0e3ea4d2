import { describe, expect, it } from "vitest";
import { formatCount } from "../src/paths.js";

describe("formatCount", () => {
  it("groups whole numbers exactly as en-US does, without loading the locale data", () => {
    for (const value of [0, 7, 999, 1_000, 12_345, 999_999, 1_000_000, -1_234_567, Number.MAX_SAFE_INTEGER])
      expect(formatCount(value), String(value)).toBe(value.toLocaleString("en-US"));
  });

  it("leaves fractions and unsafe integers to the locale formatter", () => {
    expect(formatCount(1234.5)).toBe("1,234.5");
    expect(formatCount(2 ** 60)).toBe((2 ** 60).toLocaleString("en-US"));
  });
});
