import { createHash } from "node:crypto";
import { defineTool, Harness, userText } from "@bridle/core";
import {
  collectModelEvents,
  FakeProviderServer,
  type FakeWireFormat,
  openaiChatFormat,
  openaiResponsesFormat,
  tempWorkspace,
} from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  chatCompat,
  createOpenAIChatModel,
  createOpenAIResponsesModel,
  type OpenAIChatModelOptions,
} from "../src/index.js";

const readNote = defineTool({
  name: "read_note",
  description: "Read a note by name",
  inputSchema: z.object({ name: z.string() }),
  execute: async () => ({ content: "buy milk" }),
});

let server: FakeProviderServer;
let workspace: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  server = await FakeProviderServer.start();
  workspace = await tempWorkspace();
});
afterEach(async () => {
  await Promise.all([server.close(), workspace.cleanup()]);
});

const sentKeys = () =>
  server.requests.map((request) => (request.body as { prompt_cache_key?: string }).prompt_cache_key);

/** Two model requests in one run: a tool call, then the answer. */
function enqueueToolTurn(format: FakeWireFormat): void {
  server.enqueue(
    {
      kind: "stream",
      events: format.events({
        toolCalls: [{ id: "call_1", name: "read_note", arguments: '{"name":"todo"}' }],
      }),
    },
    { kind: "stream", events: format.events({ text: "It says: buy milk." }) },
  );
}

const adapters = [
  {
    name: "Responses",
    format: openaiResponsesFormat,
    create: (options: { promptCacheKey?: boolean } = {}) =>
      createOpenAIResponsesModel({
        model: "gpt-5-mini",
        apiKey: "k",
        baseURL: openaiResponsesFormat.baseUrl(server.url),
        ...options,
      }),
  },
  {
    name: "Chat Completions",
    format: openaiChatFormat,
    create: (options: Pick<OpenAIChatModelOptions, "compat"> = {}) =>
      createOpenAIChatModel({
        model: "gpt-4.1-mini",
        apiKey: "k",
        baseURL: openaiChatFormat.baseUrl(server.url),
        ...options,
      }),
  },
] as const;

describe.each(adapters)("$name: prompt_cache_key", ({ format, create }) => {
  it("sends the session's id on every request of its runs, and another session's on the other's", async () => {
    const harness = new Harness({ model: create(), tools: [readNote], workspace: workspace.dir });
    enqueueToolTurn(format);
    const first = await harness.run({ prompt: "What is on my todo note?", sessionId: "session-a" });
    server.enqueue({ kind: "stream", events: format.events({ text: "Milk." }) });
    await harness.run({ prompt: "Shorter.", history: first.messages, sessionId: "session-a" });
    server.enqueue({ kind: "stream", events: format.events({ text: "Hello." }) });
    await harness.run({ prompt: "Hi.", sessionId: "session-b" });

    expect(sentKeys()).toEqual(["session-a", "session-a", "session-a", "session-b"]);
  });

  it("sends each request as the previous one with the new items after it, all else byte-identical", async () => {
    const harness = new Harness({
      model: create(),
      tools: [readNote],
      workspace: workspace.dir,
      system: "You read notes.",
    });
    enqueueToolTurn(format);
    const first = await harness.run({ prompt: "What is on my todo note?", sessionId: "s" });
    server.enqueue({ kind: "stream", events: format.events({ text: "Milk." }) });
    await harness.run({ prompt: "Shorter.", history: first.messages, sessionId: "s" });

    const field = format === openaiResponsesFormat ? "input" : "messages";
    const bodies = server.requests.map((request) => request.body as Record<string, unknown>);
    expect(bodies).toHaveLength(3);
    for (const [n, body] of bodies.entries()) {
      const next = bodies[n + 1];
      if (!next) continue;
      const items = body[field] as unknown[];
      const nextItems = next[field] as unknown[];
      expect(nextItems.length).toBeGreaterThan(items.length);
      expect(JSON.stringify(nextItems.slice(0, items.length))).toBe(JSON.stringify(items));
      expect(JSON.stringify({ ...next, [field]: [] })).toBe(JSON.stringify({ ...body, [field]: [] }));
    }
  });

  it("keys a run without a session by its run id, the same on each of its requests", async () => {
    const harness = new Harness({ model: create(), tools: [readNote], workspace: workspace.dir });
    enqueueToolTurn(format);
    const result = await harness.run({ prompt: "What is on my todo note?" });

    expect(result.stopReason).toBe("completed");
    expect(sentKeys()).toEqual([result.runId, result.runId]);
  });

  it("sends a key longer than OpenAI's 64 characters as its SHA-256, and none when there is none", async () => {
    const long = `session-${"x".repeat(80)}`;
    server.enqueue(
      { kind: "stream", events: format.events({ text: "a" }) },
      { kind: "stream", events: format.events({ text: "b" }) },
    );
    const model = create();
    const request = { messages: [userText("hi")], tools: [], signal: new AbortController().signal };
    await collectModelEvents(model, { ...request, cacheKey: long });
    await collectModelEvents(model, request);

    expect(sentKeys()).toEqual([createHash("sha256").update(long).digest("hex"), undefined]);
    expect(server.requests[1]?.body).not.toHaveProperty("prompt_cache_key");
  });
});

describe("servers that have no use for prompt_cache_key", () => {
  it("Chat Completions sends none to a local server's preset", async () => {
    for (const compat of [chatCompat.ollama, chatCompat.vllm, chatCompat.llamacpp]) {
      server.enqueue({ kind: "stream", events: openaiChatFormat.events({ text: "ok" }) });
      const model = adapters[1].create({ compat });
      await collectModelEvents(model, {
        messages: [userText("hi")],
        tools: [],
        cacheKey: "session-a",
        signal: new AbortController().signal,
      });
    }
    expect(server.requests).toHaveLength(3);
    for (const request of server.requests) expect(request.body).not.toHaveProperty("prompt_cache_key");
  });

  it("Responses sends none with promptCacheKey: false", async () => {
    server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "ok" }) });
    await collectModelEvents(adapters[0].create({ promptCacheKey: false }), {
      messages: [userText("hi")],
      tools: [],
      cacheKey: "session-a",
      signal: new AbortController().signal,
    });
    expect(server.requests[0]?.body).not.toHaveProperty("prompt_cache_key");
  });
});
