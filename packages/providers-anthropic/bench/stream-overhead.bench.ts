import Anthropic from "@anthropic-ai/sdk";
import { type ModelRequest, userText } from "@bridle/core";
import { anthropicMessagesFormat, FakeProviderServer, formatTimings, timeInterleaved } from "@bridle/testing";
import { afterAll, test } from "vitest";
import { createAnthropicModel } from "../src/index.js";

// One long streamed answer: 2,000 text deltas of 4 characters, served over loopback HTTP. Both sides pay
// the same HTTP and SDK parsing cost, so the ratio is what the adapter adds on top of the bare SDK.
const deltas = 2000;
const options = { time: 3000, warmupIterations: 3 };
const answer = "abcd".repeat(deltas);

const server = await FakeProviderServer.start();
server.always({ kind: "stream", events: anthropicMessagesFormat.events({ text: answer, chunkSize: 4 }) });
afterAll(() => server.close());

const request = (): ModelRequest => ({
  messages: [userText("Write a long answer.")],
  tools: [],
  signal: new AbortController().signal,
});

function check(text: string): void {
  if (text.length !== answer.length)
    throw new Error(`got ${text.length} characters, expected ${answer.length}`);
}

const baseURL = anthropicMessagesFormat.baseUrl(server.url);
const client = new Anthropic({ apiKey: "k", baseURL, maxRetries: 0 });
const model = createAnthropicModel({ model: "claude-sonnet-4-5", apiKey: "k", baseURL });

async function bare(): Promise<void> {
  const stream = await client.messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 8192,
    messages: [{ role: "user", content: "Write a long answer." }],
    stream: true,
  });
  let text = "";
  for await (const event of stream) {
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
  }
  check(text);
}

async function adapter(): Promise<void> {
  let text = "";
  for await (const event of model.stream(request())) if (event.type === "text_delta") text += event.delta;
  check(text);
}

// Interleaved medians first: vitest's blocks below run one variant after the other, which on a busy machine
// skews whichever runs second; alternating every round does not.
console.log(
  `Anthropic Messages, ${deltas} deltas, interleaved:\n${formatTimings(await timeInterleaved({ "bare @anthropic-ai/sdk": bare, "Bridle adapter": adapter }), deltas)}`,
);

test(`Anthropic Messages: one answer of ${deltas} deltas`, async ({ bench }) => {
  await bench("bare @anthropic-ai/sdk", bare).run(options);
  await bench("Bridle adapter", adapter).run(options);
});
