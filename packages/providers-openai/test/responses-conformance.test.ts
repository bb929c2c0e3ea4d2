import { openaiResponsesFormat } from "@bridle/testing";
import { describeProviderConformance } from "@bridle/testing/vitest";
import { createOpenAIResponsesModel } from "../src/index.js";

describeProviderConformance({
  name: "OpenAI Responses",
  format: openaiResponsesFormat,
  maxRetries: 2,
  idleTimeoutMs: 2000,
  createModel: (baseURL) =>
    createOpenAIResponsesModel({
      model: "gpt-5",
      apiKey: "test-key",
      baseURL,
      retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 5 },
      idleTimeoutMs: 2000,
    }),
});
