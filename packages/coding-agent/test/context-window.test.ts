import { createAnthropicModel } from "@bridle/providers-anthropic";
import { createOpenAIResponsesModel } from "@bridle/providers-openai";
import { describe, expect, it } from "vitest";
import { contextWindowOf } from "../src/context-window.js";

describe("the context window compaction is sized to", () => {
  it("is the model's own row, from its provider package's table", () => {
    const sonnet = createAnthropicModel({ model: "claude-sonnet-4-6", apiKey: "k" });
    expect(contextWindowOf(sonnet, undefined)).toEqual({ tokens: 1_000_000, source: "model" });
    const gpt = createOpenAIResponsesModel({ model: "gpt-4.1-mini", apiKey: "k" });
    expect(contextWindowOf(gpt, undefined)).toEqual({ tokens: 1_047_576, source: "model" });
  });

  it("yields to the setting, and is a modest default for a model without a row", () => {
    const sonnet = createAnthropicModel({ model: "claude-sonnet-4-6", apiKey: "k" });
    expect(contextWindowOf(sonnet, 50_000)).toEqual({ tokens: 50_000, source: "setting" });
    const unknown = createAnthropicModel({ model: "claude-not-a-model-9", apiKey: "k" });
    expect(contextWindowOf(unknown, undefined)).toEqual({ tokens: 128_000, source: "default" });
  });
});
