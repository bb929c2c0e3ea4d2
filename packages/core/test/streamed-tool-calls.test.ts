import {
  Harness,
  type Model,
  type ModelEvent,
  type ModelRequest,
  type RunEvent,
  type ToolCallDeltaEvent,
} from "@bridle/core";
import { describe, expect, it } from "vitest";
import { noopTool } from "./helpers.js";

const usage = {
  inputTokens: 1,
  outputTokens: 1,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

/** Streams one tool call the way providers do: id and name first, then the arguments a few characters at a time. */
function streamingModel(args: string, pieceSize: number): Model & { requests: number } {
  const model = {
    provider: "streaming",
    model: "streaming-model",
    requests: 0,
    async *stream(_request: ModelRequest): AsyncIterable<ModelEvent> {
      const turn = model.requests++;
      if (turn > 0) {
        yield { type: "text_delta", delta: "done" };
        yield {
          type: "done",
          message: { role: "assistant", content: [{ type: "text", text: "done" }] },
          usage,
          stopReason: "end_turn",
        };
        return;
      }
      yield { type: "text_delta", delta: "Calling." };
      yield { type: "tool_call_delta", index: 0, id: "c1", name: "noop", argumentsDelta: "" };
      for (let i = 0; i < args.length; i += pieceSize) {
        yield { type: "tool_call_delta", index: 0, argumentsDelta: args.slice(i, i + pieceSize) };
      }
      yield {
        type: "done",
        message: {
          role: "assistant",
          content: [
            { type: "text", text: "Calling." },
            { type: "tool_call", id: "c1", name: "noop", arguments: args },
          ],
        },
        usage,
        stopReason: "tool_use",
      };
    },
  };
  return model;
}

async function run(args: string, pieceSize = 3) {
  const model = streamingModel(args, pieceSize);
  const stream = new Harness({ model, tools: [noopTool] }).stream({ prompt: "go" });
  const events: RunEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result };
}

describe("streamed tool calls", () => {
  it("reach the stream as coalesced deltas, name first, before tool_call_requested", async () => {
    const args = JSON.stringify({ path: "src/cart.js", pad: "x".repeat(4_000) });
    const { events } = await run(args);
    const deltas = events.filter((event): event is ToolCallDeltaEvent => event.type === "tool_call_delta");
    const requested = events.findIndex((event) => event.type === "tool_call_requested");
    expect(deltas.length).toBeGreaterThan(1);
    // About 1,300 provider deltas become a few dozen events.
    expect(deltas.length).toBeLessThan(40);
    expect(deltas[0]).toMatchObject({ index: 0, toolCallId: "c1", toolName: "noop" });
    expect(deltas.slice(1).every((delta) => delta.toolName === undefined)).toBe(true);
    expect(deltas.map((delta) => delta.argumentsDelta).join("")).toBe(args);
    for (const delta of deltas) expect(events.indexOf(delta)).toBeLessThan(requested);
    // The first piece of arguments is out long before the call is complete.
    expect(deltas[1]?.argumentsDelta.length).toBeLessThanOrEqual(64);
  });

  it("leave the transcript as it would be without them", async () => {
    const { result } = await run("{}", 1);
    expect(result.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(JSON.stringify(result.messages)).not.toContain("tool_call_delta");
  });

  it("stop at the bound for huge arguments, saying so, while the recorded call keeps all of it", async () => {
    const args = JSON.stringify({ content: "y".repeat(200_000) });
    const { events } = await run(args, 50);
    const deltas = events.filter((event): event is ToolCallDeltaEvent => event.type === "tool_call_delta");
    const streamed = deltas.map((delta) => delta.argumentsDelta).join("");
    expect(streamed.length).toBe(16_384);
    expect(args.startsWith(streamed)).toBe(true);
    expect(deltas.at(-1)?.clipped).toBe(true);
    expect(deltas.filter((delta) => delta.clipped)).toHaveLength(1);
    const requested = events.find((event) => event.type === "tool_call_requested");
    expect(requested?.type === "tool_call_requested" && requested.toolCall.arguments).toBe(args);
  });
});
