import { describe, expect, it } from "vitest";
import { chooseEditFormat, chooseProfile, modelFamily } from "../src/index.js";

describe("the profile and edit format per provider and model family", () => {
  const cases: [provider: string, model: string, profile: string, edit: string][] = [
    ["openai", "gpt-5-mini", "openai", "apply_patch"],
    ["openai", "gpt-4.1", "openai", "apply_patch"],
    ["openai", "o3", "openai", "apply_patch"],
    ["openai", "o4-mini", "openai", "apply_patch"],
    ["openai", "o1-preview", "openai", "apply_patch"],
    ["openai", "codex-mini-latest", "openai", "apply_patch"],
    ["openai-chat", "gpt-4.1-mini", "openai", "apply_patch"],
    ["openai-chat", "openai/gpt-5", "openai", "apply_patch"],
    ["anthropic", "claude-sonnet-4-6", "anthropic", "replace"],
    ["anthropic", "claude-3-5-haiku-latest", "anthropic", "replace"],
    // A family on another family's API, or a family Bridle does not know: generic names.
    ["openai-chat", "anthropic/claude-sonnet-4", "generic", "replace"],
    ["anthropic", "gpt-5", "generic", "apply_patch"],
    ["openai-chat", "qwen2.5-coder:7b", "generic", "hashline"],
    ["openai-chat", "llama-3.1-8b-instruct", "generic", "hashline"],
    ["openai", "ollama", "generic", "hashline"],
    ["openai-chat", "o3ish-local", "generic", "hashline"],
    ["openai-chat", "gpt", "generic", "hashline"],
  ];
  it.each(cases)("%s %s → profile %s, edit format %s", (provider, model, profile, edit) => {
    const chosen = chooseProfile(provider, model);
    expect(chosen.value).toBe(profile);
    expect(chosen.reason).toContain(model);
    const format = chooseEditFormat(model);
    expect(format.value).toBe(edit);
    expect(format.reason).toContain(model);
  });

  it("names no family for a model it does not know", () => {
    expect(modelFamily("mistral-large")).toBeUndefined();
    expect(modelFamily("CLAUDE-opus-4")).toBe("anthropic");
  });
});
