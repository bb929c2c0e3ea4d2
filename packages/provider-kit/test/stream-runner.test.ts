import type { ModelEvent } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { retryingStream, retryPolicy, type StreamAttempt } from "../src/index.js";

type Raw = ModelEvent;

const done: ModelEvent = {
  type: "done",
  message: { role: "assistant", content: [{ type: "text", text: "hi" }] },
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
  stopReason: "end_turn",
};

/** An attempt whose raw events are model events, passed through as they are. */
function attemptOf(events: AsyncIterable<Raw>): StreamAttempt<Raw> {
  return { events, read: (raw, out) => out.push(raw) };
}

async function* list(...events: Raw[]): AsyncGenerator<Raw> {
  for (const event of events) yield event;
}

async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

const policy = retryPolicy({ maxRetries: 3, initialDelayMs: 1, maxDelayMs: 2 });

describe("retryingStream", () => {
  it("retries a retryable failure that happens before any output, then passes the turn on", async () => {
    let attempts = 0;
    const events = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy,
        attempt: async () => {
          attempts++;
          if (attempts < 3) throw Object.assign(new Error("503 busy"), { status: 503 });
          return attemptOf(list({ type: "text_delta", delta: "hi" }, done));
        },
      }),
    );
    expect(attempts).toBe(3);
    expect(events.map((event) => event.type)).toEqual(["retry", "retry", "text_delta", "done"]);
    const retries = events.flatMap((event) => (event.type === "retry" ? [event.retry] : []));
    expect(retries.map(({ attempt, maxAttempts }) => `${attempt}/${maxAttempts}`)).toEqual(["2/4", "3/4"]);
    for (const retry of retries) {
      expect(retry.error).toMatchObject({ code: "server", status: 503, retryable: true });
      expect(retry.error.message).not.toMatch(/gave up/);
      expect(retry.delayMs).toBeGreaterThanOrEqual(0);
    }
  });

  it("announces no retry for a failure it will not repeat", async () => {
    const events = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy,
        attempt: async () => {
          throw Object.assign(new Error("401 bad key"), { status: 401 });
        },
      }),
    );
    expect(events.map((event) => event.type)).toEqual(["error"]);
  });

  it("announces each retry it makes and none after the last attempt", async () => {
    const events = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy,
        attempt: async () => {
          throw Object.assign(new Error("500 down"), { status: 500 });
        },
      }),
    );
    expect(events.map((event) => (event.type === "retry" ? event.retry.attempt : event.type))).toEqual([
      2,
      3,
      4,
      "error",
    ]);
    expect(events.at(-1)).toMatchObject({ error: { message: "500 down (gave up after 4 attempts)" } });
  });

  it("does not retry once a delta reached the caller", async () => {
    let attempts = 0;
    async function* failing(): AsyncGenerator<Raw> {
      yield { type: "text_delta", delta: "par" };
      throw new TypeError("terminated");
    }
    const events = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy,
        attempt: async () => {
          attempts++;
          return attemptOf(failing());
        },
      }),
    );
    expect(attempts).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: "error", error: { code: "network", retryable: true } });
  });

  it("reports a stream that ends without a terminal event as bad_response, unless `end` supplies one", async () => {
    const bad = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy,
        attempt: async () => attemptOf(list()),
      }),
    );
    expect(bad).toEqual([{ type: "error", error: expect.objectContaining({ code: "bad_response" }) }]);
    const good = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy,
        attempt: async () => ({ ...attemptOf(list()), end: () => done }),
      }),
    );
    expect(good).toEqual([done]);
  });

  it("ends with aborted, without waiting out the backoff, when the caller aborts during it", async () => {
    const controller = new AbortController();
    const slow = retryPolicy({ maxRetries: 3, initialDelayMs: 60_000, maxDelayMs: 60_000 });
    const pending = collect(
      retryingStream({
        signal: controller.signal,
        policy: slow,
        attempt: async () => {
          setTimeout(() => controller.abort(), 10);
          throw Object.assign(new Error("500"), { status: 500 });
        },
      }),
    );
    const events = await pending;
    expect(events).toEqual([
      { type: "retry", retry: expect.objectContaining({ attempt: 2, maxAttempts: 4 }) },
      { type: "error", error: expect.objectContaining({ code: "aborted" }) },
    ]);
  });

  it("abandons a stalled stream as a retryable timeout and retries it", async () => {
    let attempts = 0;
    const stalled = (signal: AbortSignal): AsyncIterable<Raw> => ({
      async *[Symbol.asyncIterator]() {
        await new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve(), { once: true }),
        );
      },
    });
    const events = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy,
        idleTimeoutMs: 30,
        attempt: async (signal) => {
          attempts++;
          return attempts === 1 ? attemptOf(stalled(signal)) : attemptOf(list(done));
        },
      }),
    );
    expect(attempts).toBe(2);
    expect(events).toEqual([
      {
        type: "retry",
        retry: expect.objectContaining({
          attempt: 2,
          error: expect.objectContaining({ code: "timeout", message: "the provider sent nothing for 30 ms" }),
        }),
      },
      done,
    ]);
  });

  it("does not count a slow consumer against the idle timeout", async () => {
    const stream = retryingStream({
      signal: new AbortController().signal,
      policy,
      idleTimeoutMs: 20,
      attempt: async () =>
        attemptOf(list({ type: "text_delta", delta: "a" }, { type: "text_delta", delta: "b" }, done)),
    });
    const events: ModelEvent[] = [];
    for await (const event of stream) {
      events.push(event);
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    expect(events.map((event) => event.type)).toEqual(["text_delta", "text_delta", "done"]);
  });

  it("does not count what it prepares (an SDK imported on first use) against the idle timeout", async () => {
    let attempts = 0;
    let prepared = false;
    const events = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy,
        idleTimeoutMs: 20,
        prepare: async () => {
          await new Promise((resolve) => setTimeout(resolve, 100));
          prepared = true;
        },
        attempt: async () => {
          attempts++;
          if (!prepared) throw new Error("sent before the SDK was ready");
          return attemptOf(list(done));
        },
      }),
    );
    expect(attempts).toBe(1);
    expect(events).toEqual([done]);
  });

  it("ends as a failure, never a throw, when what it prepares fails", async () => {
    const events = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy: retryPolicy({ maxRetries: 0 }),
        prepare: () => Promise.reject(new Error("Cannot find module 'openai'")),
        attempt: async () => attemptOf(list(done)),
      }),
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.type).toBe("error");
  });

  it("drains the stream after the terminal event instead of breaking it off, ignoring what follows", async () => {
    let finished = false;
    async function* source(): AsyncGenerator<Raw> {
      yield done;
      yield { type: "text_delta", delta: "after the end" };
      finished = true;
    }
    const events = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy,
        attempt: async () => attemptOf(source()),
      }),
    );
    expect(events).toEqual([done]);
    expect(finished).toBe(true);
  });

  it("cuts off a stream held open after its terminal event, and still delivers the turn", async () => {
    const held = (signal: AbortSignal): AsyncIterable<Raw> => ({
      async *[Symbol.asyncIterator]() {
        yield done;
        await new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve(), { once: true }),
        );
      },
    });
    const events = await collect(
      retryingStream({
        signal: new AbortController().signal,
        policy,
        attempt: async (signal) => attemptOf(held(signal)),
      }),
    );
    expect(events).toEqual([done]);
  });
});
