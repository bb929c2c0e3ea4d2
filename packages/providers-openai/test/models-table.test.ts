import { modelInfoOf } from "@bridle/provider-kit";
import { describe, expect, it } from "vitest";
import { openaiModels } from "../src/index.js";
import pinned from "../src/models-dev.json" with { type: "json" };

describe("openaiModels, from the pinned models.dev copy", () => {
  it("is that copy's rows, each dated with its day, from a named commit", () => {
    expect(pinned.source).toBe("https://github.com/anomalyco/models.dev");
    expect(pinned.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(openaiModels).sort()).toEqual(Object.keys(pinned.models).sort());
    for (const row of Object.values(openaiModels)) expect(row.checked).toBe(pinned.date);
  });

  it("prices the models it names, cached input at its own rate, and no neighbour", () => {
    expect(openaiModels["gpt-5-mini"]?.price).toEqual({ input: 0.25, output: 2, cacheRead: 0.025 });
    // A snapshot models.dev prices apart keeps its own price, not its alias's.
    expect(modelInfoOf(openaiModels, "gpt-4o-2024-05-13")?.price?.input).not.toBe(
      openaiModels["gpt-4o"]?.price?.input,
    );
    expect(modelInfoOf(openaiModels, "gpt-5-mini-fast")).toBeUndefined();
  });
});
