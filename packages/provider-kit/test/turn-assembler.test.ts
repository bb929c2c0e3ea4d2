import { describe, expect, it } from "vitest";
import { degradeForeignReasoning, TurnAssembler } from "../src/index.js";

describe("TurnAssembler", () => {
  it("keeps parts in order of first appearance and numbers tool calls from 0", () => {
    const turn = new TurnAssembler();
    turn.reasoning("r", "think");
    turn.reasoningBlob("r", { sig: "s" });
    turn.text("t", "hi");
    expect(turn.toolCall("a", "call_1", "read")).toMatchObject({
      type: "tool_call_delta",
      index: 0,
      id: "call_1",
    });
    expect(turn.toolArguments("b", '{"x":')).toMatchObject({ index: 1 });
    turn.toolCall("b", "call_2", "write");
    turn.toolArguments("b", "1}");
    turn.toolArgumentsFinal("a", "");
    expect(turn.message("p", "m").content).toEqual([
      { type: "reasoning", text: "think", provider: "p", blob: { sig: "s" } },
      { type: "text", text: "hi" },
      { type: "tool_call", id: "call_1", name: "read", arguments: "{}" },
      { type: "tool_call", id: "call_2", name: "write", arguments: '{"x":1}' },
    ]);
  });

  it("forgets everything on reset", () => {
    const turn = new TurnAssembler();
    turn.text("t", "lost");
    turn.reset();
    turn.text("t", "kept");
    expect(turn.message("p", "m").content).toEqual([{ type: "text", text: "kept" }]);
  });
});

describe("degradeForeignReasoning", () => {
  it("turns another provider's reasoning into leading thinking text and drops its blob", () => {
    const messages = degradeForeignReasoning(
      [
        {
          role: "assistant",
          content: [
            {
              type: "reasoning",
              text: "plan",
              provider: "openai",
              blob: { id: "rs_1", encryptedContent: "x" },
            },
            { type: "reasoning", text: "", provider: "openai", blob: { id: "rs_2", encryptedContent: "y" } },
            { type: "text", text: "answer" },
          ],
        },
      ],
      "anthropic",
    );
    expect(messages[0]).toMatchObject({
      content: [
        { type: "text", text: "<thinking>\nplan\n</thinking>" },
        { type: "text", text: "answer" },
      ],
    });
  });

  it("degrades reasoning another model of the same provider produced, and keeps the same model's", () => {
    const message = {
      role: "assistant" as const,
      model: "claude-opus-4-5",
      content: [
        { type: "reasoning" as const, text: "deep", provider: "anthropic", blob: { signature: "s" } },
      ],
    };
    expect(degradeForeignReasoning([message], "anthropic", "claude-haiku-4-5")[0]).toMatchObject({
      content: [{ type: "text", text: "<thinking>\ndeep\n</thinking>" }],
    });
    expect(degradeForeignReasoning([message], "anthropic", "claude-opus-4-5")[0]).toBe(message);
    expect(degradeForeignReasoning([message], "anthropic")[0]).toBe(message);
  });
});
