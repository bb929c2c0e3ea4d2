import { describe, expect, it } from "vitest";
import { retryAfterMs, retryDelay, retryPolicy, sleep } from "../src/index.js";

describe("retryAfterMs", () => {
  it("prefers retry-after-ms, then reads seconds or an HTTP date", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2000);
    expect(retryAfterMs({ "Retry-After": "1.5" })).toBe(1500);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:07 GMT" }), now)).toBe(7000);
  });

  it("ignores absent or unreadable values", () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
  });
});

describe("retryDelay", () => {
  const policy = retryPolicy({ maxRetries: 3, initialDelayMs: 100, maxDelayMs: 300, maxRetryAfterMs: 1000 });

  it("backs off exponentially within the cap, with jitter in the upper half", () => {
    expect(retryDelay(policy, 0, undefined, () => 0)).toBe(50);
    expect(retryDelay(policy, 0, undefined, () => 1)).toBe(100);
    expect(retryDelay(policy, 1, undefined, () => 1)).toBe(200);
    expect(retryDelay(policy, 2, undefined, () => 1)).toBe(300);
  });

  it("uses the server's wait, and gives up when it is longer than allowed or retries ran out", () => {
    expect(retryDelay(policy, 0, 700)).toBe(700);
    expect(retryDelay(policy, 0, 5000)).toBeUndefined();
    expect(retryDelay(policy, 3, undefined)).toBeUndefined();
  });

  it("rejects a policy with negative numbers", () => {
    expect(() => retryPolicy({ maxRetries: -1 })).toThrow(/maxRetries/);
  });
});

describe("sleep", () => {
  it("rejects with the abort reason as soon as the signal aborts", async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
  });
});
