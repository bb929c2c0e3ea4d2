import { describe, expect, it } from "vitest";
import { classifyError, classifyHttpFailure } from "../src/index.js";

describe("classifyHttpFailure", () => {
  it("maps statuses to codes and retryability", () => {
    expect(classifyHttpFailure({ status: 429, message: "slow down" })).toMatchObject({
      code: "rate_limit",
      retryable: true,
    });
    expect(classifyHttpFailure({ status: 503, message: "down" })).toMatchObject({
      code: "server",
      retryable: true,
    });
    expect(classifyHttpFailure({ status: 529, message: "overloaded" })).toMatchObject({
      code: "server",
      retryable: true,
    });
    expect(classifyHttpFailure({ status: 401, message: "no" })).toMatchObject({
      code: "auth",
      retryable: false,
    });
    expect(classifyHttpFailure({ status: 422, message: "bad" })).toMatchObject({
      code: "bad_request",
      retryable: false,
    });
  });

  it("recognizes context overflow from OpenAI and Anthropic wording", () => {
    const openai = { error: { code: "context_length_exceeded", message: "maximum context length is 8192" } };
    expect(classifyHttpFailure({ status: 400, message: "400", body: openai }).code).toBe("context_overflow");
    const anthropic = { type: "error", error: { type: "invalid_request_error" } };
    const message = "400 prompt is too long: 250000 tokens > 200000 maximum";
    expect(classifyHttpFailure({ status: 400, message, body: anthropic }).code).toBe("context_overflow");
  });

  it("does not retry an exhausted quota, even though it comes as a 429", () => {
    const body = { code: "insufficient_quota", message: "You exceeded your current quota" };
    expect(classifyHttpFailure({ status: 429, message: "quota", body })).toMatchObject({
      code: "rate_limit",
      retryable: false,
    });
  });

  it("classifies in-stream error events by their type", () => {
    const overloaded = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
    expect(classifyHttpFailure({ message: "Overloaded", body: overloaded })).toMatchObject({
      code: "server",
      retryable: true,
    });
  });

  it("lets the server's x-should-retry header stop a retry, or allow one except for input errors", () => {
    const no = new Headers({ "x-should-retry": "false" });
    expect(classifyHttpFailure({ status: 503, message: "", headers: no }).retryable).toBe(false);
    const yes = { "X-Should-Retry": "true" };
    expect(
      classifyHttpFailure({ status: 418, message: "", body: { type: "odd" }, headers: yes }).retryable,
    ).toBe(false);
    expect(classifyHttpFailure({ message: "", body: { type: "odd" }, headers: yes })).toMatchObject({
      code: "unknown",
      retryable: true,
    });
  });

  it("keeps the Retry-After the server sent", () => {
    const headers = new Headers({ "retry-after": "3" });
    expect(classifyHttpFailure({ status: 429, message: "", headers }).retryAfterMs).toBe(3000);
  });
});

describe("classifyError", () => {
  it("reports aborted whenever the signal is aborted", () => {
    const controller = new AbortController();
    controller.abort();
    expect(classifyError(new Error("whatever"), controller.signal).code).toBe("aborted");
  });

  it("treats malformed JSON as a bad response and dropped sockets as network failures", () => {
    expect(classifyError(new SyntaxError("Unexpected end of JSON input"))).toMatchObject({
      code: "bad_response",
    });
    expect(classifyError(new TypeError("terminated"))).toMatchObject({ code: "network", retryable: true });
    expect(classifyError("a string")).toMatchObject({ code: "unknown", retryable: false });
  });

  it("bounds long messages", () => {
    expect(classifyError(new Error("x".repeat(5000))).message.length).toBeLessThan(700);
  });
});
