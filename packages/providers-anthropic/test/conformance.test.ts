import { anthropicMessagesFormat } from "@bridle/testing";
import { describeProviderConformance } from "@bridle/testing/vitest";
import { createAnthropicModel } from "../src/index.js";

describeProviderConformance({
  name: "Anthropic Messages",
  format: anthropicMessagesFormat,
  maxRetries: 2,
  idleTimeoutMs: 2000,
  createModel: (baseURL) =>
    createAnthropicModel({
      model: "claude-sonnet-4-5",
      apiKey: "test-key",
      baseURL,
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 },
      idleTimeoutMs: 2000,
    }),
});
