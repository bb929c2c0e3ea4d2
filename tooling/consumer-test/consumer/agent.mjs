// A consumer's agent, as a user writes it after `npm install @bridle/core @bridle/providers-openai
// @bridle/tools-fs @bridle/store-sqlite`. The consumer test runs it as is, then with the two marked import
// lines swapped for providers-anthropic and store-jsonl and nothing else changed.
// Usage: node agent.mjs <workspace-folder> <data-folder>
import { join } from "node:path";
import { Harness, sessionSink, sessionTranscript } from "@bridle/core";
// swap: provider
import { createOpenAIResponsesModel as createModel } from "@bridle/providers-openai";
// swap: store
import { SqliteSessionStore as SessionStore } from "@bridle/store-sqlite";
import { createFsTools } from "@bridle/tools-fs";

const [workspace, dataDir] = process.argv.slice(2);
if (!workspace || !dataDir) throw new Error("usage: node agent.mjs <workspace-folder> <data-folder>");

// The endpoint and key come from the provider's usual environment variables (OPENAI_BASE_URL,
// ANTHROPIC_BASE_URL, ...), so no line below names a provider.
const model = createModel({ model: process.env.BRIDLE_MODEL ?? "test-model" });
// The two stores name their location differently: SQLite a file (`path`), JSONL a folder (`dir`). One
// options object carrying both keeps this line the same whichever store is imported.
const location = join(dataDir, "sessions");
const storeOptions = { path: location, dir: location };
const store = await SessionStore.open(storeOptions);

const session = await store.createSession({ title: "consumer test" });
const sink = sessionSink(store, session.id);
const harness = new Harness({ model, tools: createFsTools().tools, workspace });
const result = await harness.run({ prompt: "What does notes.txt say?", sessionId: session.id, sink });
await sink.flush();
const transcript = await sessionTranscript(store, session.id);
await store.close();

const toolResult = result.messages.find((message) => message.role === "tool");
console.log(
  JSON.stringify({
    provider: model.provider,
    stopReason: result.stopReason,
    error: result.error,
    finalText: result.finalText,
    toolResult: toolResult && { isError: toolResult.isError, content: toolResult.content },
    storedMessages: transcript.map((message) => message.role),
    resolved: Object.fromEntries(
      ["@bridle/core", "@bridle/tools-fs"].map((name) => [name, import.meta.resolve(name)]),
    ),
  }),
);
