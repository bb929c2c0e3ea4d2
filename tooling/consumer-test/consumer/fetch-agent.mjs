// A consumer's agent using a contributed tool package, @bridle/tools-fetch, installed from npm beside the
// rest. Usage: node fetch-agent.mjs <url>   (the allowed host is the URL's own)
import { Harness } from "@bridle/core";
import { createOpenAIResponsesModel } from "@bridle/providers-openai";
import { createFetchTool } from "@bridle/tools-fetch";

const [url] = process.argv.slice(2);
if (!url) throw new Error("usage: node fetch-agent.mjs <url>");

const fetchTool = createFetchTool({ allowedHosts: [new URL(url).host], maxBytes: 64 * 1024 });
const model = createOpenAIResponsesModel({ model: process.env.BRIDLE_MODEL ?? "test-model" });
const harness = new Harness({ model, tools: [fetchTool] });
const result = await harness.run({ prompt: `Summarize ${url}` });
const toolResult = result.messages.find((message) => message.role === "tool");
console.log(
  JSON.stringify({
    stopReason: result.stopReason,
    finalText: result.finalText,
    toolResult: toolResult && { isError: toolResult.isError, content: toolResult.content },
  }),
);
