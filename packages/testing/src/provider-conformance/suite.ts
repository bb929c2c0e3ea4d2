import { type Model, type ModelRequest, textOf, toolCallsOf, userText } from "@bridle/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeProviderServer, type FakeReply } from "../fake-servers/server.js";
import type { FakeTurn, FakeWireFormat } from "../fake-servers/turn.js";
import { collectModelEvents } from "./model-run.js";

export interface ProviderConformanceOptions {
  /** Shown in the describe block. */
  readonly name: string;
  /** The wire format the adapter speaks; the suite serves it from a loopback fake server. */
  readonly format: FakeWireFormat;
  /**
   * A Model that talks to `baseUrl` (already shaped for the SDK: `format.baseUrl(origin)`), with its own
   * retries on, a backoff of a few milliseconds, and `maxRetries` retries.
   */
  readonly createModel: (baseUrl: string) => Model;
  readonly maxRetries: number;
  /** The stream idle timeout the model was given, if it has one: enables the stalled-stream case. */
  readonly idleTimeoutMs?: number;
}

type StreamReply = Extract<FakeReply, { kind: "stream" }>;

const weatherTool = {
  name: "get_weather",
  description: "Weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

/**
 * The cases every provider adapter must pass, ours or a contributed one, each over real HTTP against a
 * fake server speaking the provider's wire format: text, parallel and awkwardly split tool calls, usage,
 * aborts, retries (Retry-After honoured, 5xx until the budget runs out, 4xx never retried), network
 * failures, malformed and truncated streams, in-stream errors and context overflow.
 */
export function describeProviderConformance(options: ProviderConformanceOptions): void {
  const { format } = options;

  describe(`provider conformance: ${options.name}`, () => {
    let server: FakeProviderServer;
    let model: Model;

    beforeEach(async () => {
      server = await FakeProviderServer.start();
      model = options.createModel(format.baseUrl(server.url));
    });
    afterEach(async () => {
      await server.close();
    });

    const request = (signal = new AbortController().signal): ModelRequest => ({
      system: "You are terse.",
      messages: [userText("What is the weather in Paris and Rome?")],
      tools: [weatherTool],
      signal,
    });
    const stream = (turn: FakeTurn, extra: Omit<StreamReply, "kind" | "events"> = {}): StreamReply => ({
      kind: "stream",
      events: format.events(turn),
      ...extra,
    });

    it("streams plain text and ends with one complete turn", async () => {
      const text = "Paris is sunny; Rome is warm. Ünïcödé and emoji 🌤 survive.";
      server.enqueue(stream({ text, chunkSize: 5 }));
      const run = await collectModelEvents(model, request());
      expect(run.terminal.type).toBe("done");
      if (run.terminal.type !== "done") return;
      expect(run.text).toBe(text);
      expect(textOf(run.terminal.message.content)).toBe(text);
      expect(run.terminal.message.role).toBe("assistant");
      expect(run.terminal.stopReason).toBe("end_turn");
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.method).toBe("POST");
      expect(server.requests[0]?.path.split("?")[0]).toBe(format.path);
    });

    it("returns parallel tool calls with their ids, names and exact arguments", async () => {
      const calls = [
        { id: "call_paris", name: "get_weather", arguments: '{"city":"Paris"}' },
        { id: "call_rome", name: "get_weather", arguments: '{"city":"Rome"}' },
      ];
      server.enqueue(stream({ text: "Checking both.", toolCalls: calls, chunkSize: 3 }));
      const run = await collectModelEvents(model, request());
      expect(run.terminal.type).toBe("done");
      if (run.terminal.type !== "done") return;
      expect(run.terminal.stopReason).toBe("tool_use");
      const parts = toolCallsOf(run.terminal.message);
      expect(parts.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }))).toEqual(calls);
      expect([...run.argumentsByIndex.values()]).toEqual(calls.map((call) => call.arguments));
    });

    it("keeps tool arguments intact when the stream splits them at awkward places", async () => {
      const args =
        '{"path":"dir/\\"quoted\\".txt","note":"caf\u00e9 \ud83d\ude00 \\\\n\\u00e9","n":[1,2.5e3,null]}';
      const backslash = args.indexOf("\\");
      const surrogate = args.indexOf("\ud83d") + 1;
      const calls = [
        {
          id: "call_split",
          name: "get_weather",
          arguments: args,
          splitAt: [1, backslash + 1, surrogate, args.length - 1],
        },
      ];
      // chunkBytes also cuts the HTTP body mid-event and inside multi-byte UTF-8 sequences.
      server.enqueue(stream({ toolCalls: calls }, { chunkBytes: 7 }));
      const run = await collectModelEvents(model, request());
      expect(run.terminal.type).toBe("done");
      if (run.terminal.type !== "done") return;
      expect(toolCallsOf(run.terminal.message)[0]?.arguments).toBe(args);
      expect(run.argumentsByIndex.get(0)).toBe(args);
      expect(JSON.parse(args)).toMatchObject({ note: "café 😀 \\n\u00e9" });
    });

    it("reports usage with cache and reasoning tokens normalized", async () => {
      const usage = {
        inputTokens: 1200,
        cacheReadTokens: 800,
        cacheWriteTokens: 100,
        outputTokens: 300,
        reasoningTokens: 120,
      };
      server.enqueue(stream({ text: "ok", usage }));
      const run = await collectModelEvents(model, request());
      expect(run.terminal.type).toBe("done");
      if (run.terminal.type !== "done") return;
      expect(run.terminal.usage).toEqual(format.reportedUsage(usage));
    });

    it("stops promptly on abort mid-stream, ends with an aborted error and closes the request", async () => {
      const events = format.events({ text: "abcdefghijklmnopqrstuvwxyz0123456789", chunkSize: 4 });
      server.enqueue({ kind: "stream", events, hangAfter: events.length - 4 });
      const controller = new AbortController();
      const run = await collectModelEvents(model, request(controller.signal), (event) => {
        if (event.type === "text_delta") controller.abort();
      });
      expect(run.terminal).toMatchObject({ type: "error", error: { code: "aborted" } });
      await vi.waitFor(() => expect(server.requests[0]?.aborted).toBe(true), { timeout: 5000 });
      expect(server.requests).toHaveLength(1);
    });

    it("ends with an aborted error without calling the provider when the signal is already aborted", async () => {
      const controller = new AbortController();
      controller.abort();
      server.enqueue(stream({ text: "never" }));
      const run = await collectModelEvents(model, request(controller.signal));
      expect(run.terminal).toMatchObject({ type: "error", error: { code: "aborted" } });
      expect(run.text).toBe("");
    });

    it("retries a 429 after the server's Retry-After, then succeeds", async () => {
      server.enqueue(
        {
          kind: "json",
          status: 429,
          body: format.errorBody("rate_limit", "Rate limit reached"),
          headers: { "retry-after-ms": "150", "retry-after": "0.15" },
        },
        stream({ text: "after the wait" }),
      );
      const started = performance.now();
      const run = await collectModelEvents(model, request());
      const waited = performance.now() - started;
      expect(run.terminal.type).toBe("done");
      expect(run.text).toBe("after the wait");
      expect(server.requests).toHaveLength(2);
      // The backoff the adapter was given is tiny, so a wait this long can only come from Retry-After.
      expect(waited).toBeGreaterThanOrEqual(140);
    });

    it("retries 5xx until its retries run out, then reports a retryable server error", async () => {
      const replies = Array.from({ length: options.maxRetries + 3 }, () => ({
        kind: "json" as const,
        status: 500,
        body: format.errorBody("server", "The server had an error while processing your request."),
      }));
      server.enqueue(...replies);
      const run = await collectModelEvents(model, request());
      expect(run.terminal).toMatchObject({
        type: "error",
        error: { code: "server", retryable: true, status: 500 },
      });
      expect(server.requests).toHaveLength(options.maxRetries + 1);
      // Every retry is announced before its wait, numbered from the second attempt, none after the last.
      const retries = run.events.flatMap((event) => (event.type === "retry" ? [event.retry] : []));
      expect(retries.map((retry) => retry.attempt)).toEqual(
        Array.from({ length: options.maxRetries }, (_, index) => index + 2),
      );
      for (const retry of retries) {
        expect(retry).toMatchObject({
          maxAttempts: options.maxRetries + 1,
          error: { code: "server", status: 500 },
        });
      }
    });

    it("never retries a 4xx input error", async () => {
      server.enqueue(
        { kind: "json", status: 400, body: format.errorBody("bad_request", "tools[0].name: invalid") },
        stream({ text: "must not be reached" }),
      );
      const run = await collectModelEvents(model, request());
      expect(run.terminal).toMatchObject({
        type: "error",
        error: { code: "bad_request", retryable: false, status: 400 },
      });
      expect(server.requests).toHaveLength(1);
    });

    it("classifies a rejected key as auth and does not retry it", async () => {
      server.enqueue({ kind: "json", status: 401, body: format.errorBody("auth", "invalid x-api-key") });
      const run = await collectModelEvents(model, request());
      expect(run.terminal).toMatchObject({ type: "error", error: { code: "auth", retryable: false } });
      expect(server.requests).toHaveLength(1);
    });

    it("classifies context overflow and does not retry it", async () => {
      const message =
        format.name === "anthropic-messages"
          ? "prompt is too long: 215000 tokens > 200000 maximum"
          : "This model's maximum context length is 128000 tokens. However, your messages resulted in 215000 tokens.";
      server.enqueue({ kind: "json", status: 400, body: format.errorBody("context_overflow", message) });
      const run = await collectModelEvents(model, request());
      expect(run.terminal).toMatchObject({
        type: "error",
        error: { code: "context_overflow", retryable: false },
      });
      expect(server.requests).toHaveLength(1);
    });

    it("retries a dropped connection, then succeeds", async () => {
      server.enqueue({ kind: "drop" }, stream({ text: "reconnected" }));
      const run = await collectModelEvents(model, request());
      expect(run.terminal.type).toBe("done");
      expect(run.text).toBe("reconnected");
      expect(server.requests).toHaveLength(2);
    });

    it("retries an overload reported inside the stream before any output, then succeeds", async () => {
      const opening = format.events({ text: "x" }).slice(0, format.name === "openai-chat" ? 0 : 1);
      server.enqueue(
        { kind: "stream", events: [...opening, format.streamError("overloaded", "Overloaded")] },
        stream({ text: "second try" }),
      );
      const run = await collectModelEvents(model, request());
      expect(run.terminal.type).toBe("done");
      expect(run.text).toBe("second try");
      expect(server.requests).toHaveLength(2);
    });

    it.skipIf(options.idleTimeoutMs === undefined)(
      "abandons a stream that stalls before any output as a timeout, and retries it",
      async () => {
        const events = format.events({ text: "x" });
        server.enqueue({ kind: "stream", events, hangAfter: 1 }, stream({ text: "after the stall" }));
        const run = await collectModelEvents(model, request());
        expect(run.terminal.type).toBe("done");
        expect(run.text).toBe("after the stall");
        expect(server.requests).toHaveLength(2);
        expect(server.requests[0]?.aborted).toBe(true);
      },
    );

    it.skipIf(options.idleTimeoutMs === undefined)(
      "ends a stream that sends its headers and then nothing with a typed timeout, once retries run out",
      async () => {
        const silent = { kind: "stream" as const, events: [], hangAfter: 0 };
        server.enqueue(...Array.from({ length: options.maxRetries + 1 }, () => silent));
        const run = await collectModelEvents(model, request());
        expect(run.terminal).toMatchObject({ type: "error", error: { code: "timeout", retryable: true } });
        expect(run.events.filter((event) => event.type === "retry")).toHaveLength(options.maxRetries);
        expect(server.requests).toHaveLength(options.maxRetries + 1);
        // The client hung up on each stalled attempt (the last one's close may still be on its way).
        expect(server.requests.slice(0, -1).every((sent) => sent.aborted)).toBe(true);
      },
    );

    it("ends a malformed stream with a bad_response error, without hanging", async () => {
      const events = format.events({ text: "hello there, general", chunkSize: 3 });
      const broken = [
        ...events.slice(0, 3),
        { ...events[3], data: '{"type": "content_blo' },
        ...events.slice(4),
      ];
      server.enqueue({ kind: "stream", events: broken as typeof events });
      const run = await collectModelEvents(model, request());
      expect(run.terminal).toMatchObject({ type: "error", error: { code: "bad_response" } });
    });

    it("ends a stream cut off mid-turn with an error, never a partial done", async () => {
      const events = format.events({ text: "this answer will be cut off", chunkSize: 3 });
      server.enqueue({ kind: "stream", events, dropAfter: events.length - 3 });
      const run = await collectModelEvents(model, request());
      expect(run.terminal.type).toBe("error");
      if (run.terminal.type !== "error") return;
      expect(["network", "bad_response"]).toContain(run.terminal.error.code);
      expect(run.text.length).toBeGreaterThan(0);
    });
  });
}
