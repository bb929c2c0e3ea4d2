import type { ModelEvent, ModelRequest } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { describe, expect, it } from "vitest";

function request(signal = new AbortController().signal): ModelRequest {
  return { messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [], signal };
}

async function drain(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("ScriptedModel", () => {
  it("plays turns in order and ends each with exactly one done event", async () => {
    const model = new ScriptedModel([
      { text: "abcdef", chunkSize: 2, usage: { inputTokens: 5, outputTokens: 3 } },
      { toolCalls: [{ name: "t", arguments: '{"raw": 1 }' }] },
    ]);
    const first = await drain(model.stream(request()));
    expect(first.map((e) => e.type)).toEqual(["text_delta", "text_delta", "text_delta", "done"]);
    const done = first.at(-1);
    expect(done?.type === "done" && done.usage.inputTokens).toBe(5);
    const second = await drain(model.stream(request()));
    const turn = second.at(-1);
    expect(turn?.type === "done" && turn.stopReason).toBe("tool_use");
    expect(turn?.type === "done" && turn.message.content[0]).toMatchObject({ arguments: '{"raw": 1 }' });
    expect(model.requests).toHaveLength(2);
  });

  it("reports a missing turn as an error event instead of throwing", async () => {
    const events = await drain(new ScriptedModel([]).stream(request()));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "error", error: { code: "bad_response" } });
  });

  it("honours abort during a delay", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([{ text: "late", delayMs: 10_000 }]);
    setTimeout(() => controller.abort(), 20);
    const events = await drain(model.stream(request(controller.signal)));
    expect(events).toEqual([
      { type: "error", error: { code: "aborted", message: "aborted", retryable: false } },
    ]);
  });

  it("answers from a function of the request", async () => {
    const model = new ScriptedModel(({ index, messages }) => ({
      text: `turn ${index} saw ${messages.length}`,
    }));
    const events = await drain(model.stream(request()));
    expect(events.at(-1)).toMatchObject({
      type: "done",
      message: { content: [{ type: "text", text: "turn 0 saw 1" }] },
    });
  });
});
