import { defineTool, Harness, type RunEvent } from "@bridle/core";
import { createOpenAIResponsesModel } from "@bridle/providers-openai";
import { FakeProviderServer, openaiResponsesFormat } from "@bridle/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { StreamedCalls } from "../src/terminal/streamed-calls.js";

// A UI consumer of a run: it shows a tool call while the model is still writing it. Driven through the real
// OpenAI Responses adapter against the loopback fake server, which streams arguments a few characters at a time.
let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const editFile = defineTool({
  name: "edit_file",
  description: "Replace text in a file",
  inputSchema: z.object({
    path: z.string().describe("file"),
    old_string: z.string().describe("old"),
    new_string: z.string().describe("new"),
  }),
  execute: async ({ path }) => ({ content: `edited ${path}` }),
});

const args = JSON.stringify({
  path: "src/cart.js",
  old_string: "const total = items.reduce((sum, item) => sum + item.price, 0);\n".repeat(20),
  new_string: "const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);\n".repeat(20),
});

function harness(url: string) {
  const model = createOpenAIResponsesModel({
    model: "test-model",
    apiKey: "test-key",
    baseURL: openaiResponsesFormat.baseUrl(url),
  });
  return new Harness({ model, tools: [editFile] });
}

describe("a UI watching streamed tool calls", () => {
  it("shows `edit_file src/cart.js` and receives the arguments before tool_call_requested", async () => {
    server = await FakeProviderServer.start();
    server.enqueue({
      kind: "stream",
      events: openaiResponsesFormat.events({
        toolCalls: [{ id: "c1", name: "edit_file", arguments: args }],
        chunkSize: 4,
      }),
    });
    server.enqueue({ kind: "stream", events: openaiResponsesFormat.events({ text: "Fixed." }) });
    const ui = new StreamedCalls();
    const seen: { event: RunEvent; line?: string }[] = [];
    const stream = harness(server.url).stream({ prompt: "fix the cart total" });
    for await (const event of stream) {
      const line = ui.observe(event);
      seen.push(line === undefined ? { event } : { event, line });
    }
    expect((await stream.result).stopReason).toBe("completed");
    const shownAt = seen.findIndex((item) => item.line !== undefined);
    const requestedAt = seen.findIndex((item) => item.event.type === "tool_call_requested");
    expect(seen[shownAt]?.line).toBe("… edit_file src/cart.js");
    expect(shownAt).toBeGreaterThan(-1);
    expect(shownAt).toBeLessThan(requestedAt);
    const streamed = seen
      .map((item) => item.event)
      .filter((event) => event.type === "tool_call_delta")
      .map((event) => (event.type === "tool_call_delta" ? event.argumentsDelta : ""))
      .join("");
    expect(streamed).toBe(args);
    // The adapter sent hundreds of 4-character pieces; the UI got a few dozen events.
    const deltas = seen.filter((item) => item.event.type === "tool_call_delta").length;
    expect(deltas).toBeLessThan(40);
    expect(seen.filter((item) => item.line !== undefined)).toHaveLength(1);
  });

  it("shows the call while the model is still writing it: the stream stalls mid-arguments", async () => {
    server = await FakeProviderServer.start();
    const events = openaiResponsesFormat.events({
      toolCalls: [{ id: "c1", name: "edit_file", arguments: args }],
      chunkSize: 4,
    });
    // The server stops a third of the way into the arguments and never finishes the turn.
    const cut =
      events.findIndex((event) => JSON.stringify(event).includes("function_call_arguments.delta")) + 80;
    server.enqueue({ kind: "stream", events, hangAfter: cut });
    const ui = new StreamedCalls();
    const stream = harness(server.url).stream({ prompt: "fix the cart total" });
    const types: string[] = [];
    let line: string | undefined;
    for await (const event of stream) {
      types.push(event.type);
      line ??= ui.observe(event);
      if (line) stream.abort();
    }
    expect(line).toBe("… edit_file src/cart.js");
    expect(types).not.toContain("tool_call_requested");
    expect((await stream.result).stopReason).toBe("aborted");
  });
});
