import { modelInfoOf } from "@bridle/provider-kit";
import { describe, expect, it } from "vitest";
import { anthropicModels } from "../src/index.js";
import pinned from "../src/models-dev.json" with { type: "json" };

describe("anthropicModels, from the pinned models.dev copy", () => {
  it("is that copy's rows, each dated with its day, from a named commit", () => {
    expect(pinned.source).toBe("https://github.com/anomalyco/models.dev");
    expect(pinned.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(anthropicModels).sort()).toEqual(Object.keys(pinned.models).sort());
    for (const row of Object.values(anthropicModels)) expect(row.checked).toBe(pinned.date);
  });

  it("prices cache reads and writes at their own rates, and finds an alias's one dated snapshot", () => {
    expect(anthropicModels["claude-sonnet-4-6"]?.price).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
    expect(modelInfoOf(anthropicModels, "claude-3-7-sonnet-latest")).toBe(
      anthropicModels["claude-3-7-sonnet-20250219"],
    );
    expect(modelInfoOf(anthropicModels, "claude-opus-4-9")).toBeUndefined();
  });
});
