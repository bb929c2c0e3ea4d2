import { describe, expect, it } from "vitest";
import { Harness, type Model, type ModelEvent, type ModelRequest } from "../src/index.js";

/** Answers every request at once and keeps the cache key each one carried. */
class KeyRecorder implements Model {
  readonly provider = "test";
  readonly model = "recorder";
  readonly keys: Array<string | undefined> = [];

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    this.keys.push(request.cacheKey);
    yield {
      type: "done",
      message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      stopReason: "end_turn",
    };
  }
}

describe("the cache key on model requests", () => {
  it("is the session's id, else the parent run's, else the run's own, with a subagent's name after it", async () => {
    const model = new KeyRecorder();
    const main = new Harness({ model });
    const sub = new Harness({ model, agentName: "reviewer" });

    await main.run({ prompt: "a", sessionId: "session-1" });
    await main.run({ prompt: "b", sessionId: "session-1" });
    const alone = await main.run({ prompt: "c" });
    await sub.run({ prompt: "d", sessionId: "session-1" });
    await sub.run({ prompt: "e", parentRunId: "run-parent" });

    expect(model.keys).toEqual([
      "session-1",
      "session-1",
      alone.runId,
      "session-1:reviewer",
      "run-parent:reviewer",
    ]);
  });
});
