import { defineHook, defineTool, Harness, textOf } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

function echoTool(ran: string[]) {
  return defineTool({
    name: "echo",
    description: "echoes",
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      ran.push(text);
      return { content: `echo ${text}` };
    },
  });
}

const lastToolText = (messages: readonly { role: string; content: unknown }[] | undefined) =>
  JSON.stringify(messages?.filter((m) => m.role === "tool").at(-1) ?? null);

describe("before_tool_call replaceArgs", () => {
  it("runs the tool with the replaced arguments; later hooks and after_tool_call see them", async () => {
    const ran: string[] = [];
    const seen: unknown[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "original" } }] },
      { text: "done" },
    ]);
    const harness = new Harness({
      workspace: dir,
      model,
      tools: [echoTool(ran)],
      hooks: [
        defineHook({
          event: "before_tool_call",
          handler: (input) => input.replaceArgs({ text: "replaced" }),
        }),
        defineHook({ event: "before_tool_call", handler: (input) => void seen.push(input.args) }),
        defineHook({ event: "after_tool_call", handler: (input) => void seen.push(input.args) }),
      ],
    });
    await harness.run({ prompt: "go" });
    expect(ran).toEqual(["replaced"]);
    expect(seen).toEqual([{ text: "replaced" }, { text: "replaced" }]);
    expect(lastToolText(model.requests[1]?.messages)).toContain("echo replaced");
  });

  it("denies the call when the replacement fails the tool's schema", async () => {
    const ran: string[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "original" } }] },
      { text: "done" },
    ]);
    const harness = new Harness({
      workspace: dir,
      model,
      tools: [echoTool(ran)],
      hooks: [defineHook({ event: "before_tool_call", handler: (input) => input.replaceArgs({ text: 42 }) })],
    });
    const result = await harness.run({ prompt: "go" });
    expect(ran).toEqual([]);
    expect(result.messages.find((m) => m.role === "tool")).toMatchObject({ errorKind: "Denied" });
    expect(lastToolText(model.requests[1]?.messages)).toContain("replaced the arguments with invalid ones");
  });
});

describe("before_stop", () => {
  it("keeps the run going with a follow-up message, and says so on the next stop", async () => {
    const continued: boolean[] = [];
    const model = new ScriptedModel([{ text: "first answer" }, { text: "second answer" }]);
    const harness = new Harness({
      workspace: dir,
      model,
      hooks: [
        defineHook({
          event: "before_stop",
          handler: (input) => {
            continued.push(input.continued);
            if (!input.continued) input.continueWith("check your work first");
          },
        }),
      ],
    });
    const stream = harness.stream({ prompt: "go" });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const result = await stream.result;
    expect(continued).toEqual([false, true]);
    expect(result.stopReason).toBe("completed");
    expect(result.finalText).toBe("second answer");
    const last = model.requests[1]?.messages.at(-1);
    expect(last?.role).toBe("user");
    expect(last && last.role === "user" ? textOf(last.content) : "").toBe("check your work first");
    expect(types).toContain("user_message_delivered");
  });

  it("ends at the model-request limit when a hook never lets the run stop", async () => {
    const model = new ScriptedModel([{ text: "a" }, { text: "b" }, { text: "c" }]);
    const harness = new Harness({
      workspace: dir,
      model,
      limits: { maxModelRequests: 2 },
      hooks: [defineHook({ event: "before_stop", handler: (input) => input.continueWith("again") })],
    });
    const result = await harness.run({ prompt: "go" });
    expect(result.stopReason).toBe("max_model_requests");
    expect(model.requests).toHaveLength(2);
  });
});
