import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { openaiChatFormat } from "@bridle/testing";
import { describeProviderConformance } from "@bridle/testing/vitest";
import { createAISDKModel } from "../src/index.js";

// The adapter over a real AI SDK provider package, @ai-sdk/openai-compatible, talking to the loopback
// fake server in the Chat Completions wire format: every conformance case goes through the package's own
// request building, SSE parsing and error wrapping.
describeProviderConformance({
  name: "AI SDK (@ai-sdk/openai-compatible)",
  format: openaiChatFormat,
  maxRetries: 2,
  idleTimeoutMs: 2000,
  createModel: (baseURL) =>
    createAISDKModel({
      model: createOpenAICompatible({
        name: "fake",
        baseURL,
        apiKey: "test-key",
        includeUsage: true,
      }).chatModel("gpt-4.1"),
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 },
      idleTimeoutMs: 2000,
    }),
});
