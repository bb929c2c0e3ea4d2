import { openaiChatFormat } from "@bridle/testing";
import { describeProviderConformance } from "@bridle/testing/vitest";
import { createOpenAIChatModel } from "../src/index.js";

describeProviderConformance({
  name: "OpenAI Chat Completions",
  format: openaiChatFormat,
  maxRetries: 2,
  idleTimeoutMs: 2000,
  createModel: (baseURL) =>
    createOpenAIChatModel({
      model: "gpt-4.1",
      apiKey: "test-key",
      baseURL,
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 },
      idleTimeoutMs: 2000,
    }),
});
