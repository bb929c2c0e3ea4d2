import { type Model, type ModelRequest, userText } from "@bridle/core";
import {
  FakeProviderServer,
  formatTimings,
  openaiChatFormat,
  openaiResponsesFormat,
  timeInterleaved,
} from "@bridle/testing";
import { OpenAI } from "openai";
import { afterAll, test } from "vitest";
import { createOpenAIChatModel, createOpenAIResponsesModel } from "../src/index.js";

// One long streamed answer: 2,000 text deltas of 4 characters, served over loopback HTTP. Both sides pay
// the same HTTP and SDK parsing cost, so the ratio is what the adapter adds on top of the bare SDK.
const deltas = 2000;
const options = { time: 3000, warmupIterations: 3 };
const answer = "abcd".repeat(deltas);

const responsesServer = await FakeProviderServer.start();
responsesServer.always({
  kind: "stream",
  events: openaiResponsesFormat.events({ text: answer, chunkSize: 4 }),
});
const chatServer = await FakeProviderServer.start();
chatServer.always({ kind: "stream", events: openaiChatFormat.events({ text: answer, chunkSize: 4 }) });
afterAll(async () => {
  await Promise.all([responsesServer.close(), chatServer.close()]);
});

const request = (): ModelRequest => ({
  messages: [userText("Write a long answer.")],
  tools: [],
  signal: new AbortController().signal,
});

function check(text: string): void {
  if (text.length !== answer.length)
    throw new Error(`got ${text.length} characters, expected ${answer.length}`);
}

const responsesURL = openaiResponsesFormat.baseUrl(responsesServer.url);
const chatURL = openaiChatFormat.baseUrl(chatServer.url);
const responsesClient = new OpenAI({ apiKey: "k", baseURL: responsesURL, maxRetries: 0 });
const chatClient = new OpenAI({ apiKey: "k", baseURL: chatURL, maxRetries: 0 });
const responsesModel = createOpenAIResponsesModel({ model: "gpt-5", apiKey: "k", baseURL: responsesURL });
const chatModel = createOpenAIChatModel({ model: "gpt-4.1", apiKey: "k", baseURL: chatURL });

async function bareResponses(): Promise<void> {
  const stream = await responsesClient.responses.create({
    model: "gpt-5",
    input: "Write a long answer.",
    stream: true,
  });
  let text = "";
  for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
  check(text);
}

async function bareChat(): Promise<void> {
  const stream = await chatClient.chat.completions.create({
    model: "gpt-4.1",
    messages: [{ role: "user", content: "Write a long answer." }],
    stream: true,
  });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  check(text);
}

async function viaAdapter(model: Model): Promise<void> {
  let text = "";
  for await (const event of model.stream(request())) if (event.type === "text_delta") text += event.delta;
  check(text);
}

// Interleaved medians first: vitest's blocks below run one variant after the other, which on a busy machine
// skews whichever runs second; alternating every round does not.
const responsesTimings = await timeInterleaved({
  "bare openai SDK": bareResponses,
  "Bridle adapter": () => viaAdapter(responsesModel),
});
console.log(`Responses, ${deltas} deltas, interleaved:\n${formatTimings(responsesTimings, deltas)}`);
const chatTimings = await timeInterleaved({
  "bare openai SDK": bareChat,
  "Bridle adapter": () => viaAdapter(chatModel),
});
console.log(`Chat Completions, ${deltas} deltas, interleaved:\n${formatTimings(chatTimings, deltas)}`);

test(`Responses: one answer of ${deltas} deltas`, async ({ bench }) => {
  await bench("bare openai SDK", bareResponses).run(options);
  await bench("Bridle adapter", () => viaAdapter(responsesModel)).run(options);
});

test(`Chat Completions: one answer of ${deltas} deltas`, async ({ bench }) => {
  await bench("bare openai SDK", bareChat).run(options);
  await bench("Bridle adapter", () => viaAdapter(chatModel)).run(options);
});
