import {
  type ApprovalRequest,
  type Approver,
  askApprover,
  defineHook,
  defineTool,
  Harness,
  type RunEvent,
} from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-hook-approval-"));
});
afterEach(() => cleanup());

function echoTool(ran: string[], approval = false) {
  return defineTool({
    name: "echo",
    description: "echoes",
    inputSchema: z.object({ text: z.string() }),
    ...(approval ? { annotations: { requires_approval: true } } : {}),
    execute: async ({ text }) => {
      ran.push(text);
      return { content: `echo ${text}` };
    },
  });
}

/** An approver that records what it was asked and answers from `answers`, in order. */
function recordingApprover(answers: ({ approved: boolean; reason?: string } | "ask")[]) {
  const asked: ApprovalRequest[] = [];
  const approver: Approver = {
    decide: async (request) => {
      asked.push(request);
      return answers.shift() ?? { approved: false, reason: "no answer left" };
    },
  };
  return { approver, asked };
}

const askHook = defineHook({
  event: "before_tool_call",
  name: "guard",
  handler: (input) => input.requireApproval("writes outside the docs folder"),
});

const toolResult = (messages: readonly { role: string }[]) => messages.find((m) => m.role === "tool");

describe("before_tool_call requireApproval", () => {
  it("asks the approver with the hook's reason; approved, the call runs", async () => {
    const ran: string[] = [];
    const { approver, asked } = recordingApprover([{ approved: true }]);
    const harness = new Harness({
      workspace: dir,
      model: new ScriptedModel([
        { toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
        { text: "done" },
      ]),
      tools: [echoTool(ran)],
      approver,
      hooks: [askHook],
    });
    const stream = harness.stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(ran).toEqual(["hi"]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      reason: "writes outside the docs folder",
      args: { text: "hi" },
      toolCall: { name: "echo" },
    });
    const types = events.map((e: RunEvent) => e.type);
    // The ask is on the record, between the hook and the call's completion.
    expect(types.indexOf("approval_requested")).toBeLessThan(types.indexOf("approval_resolved"));
    expect(types.indexOf("approval_resolved")).toBeLessThan(types.indexOf("tool_call_completed"));
    expect(toolResult(result.messages)).toMatchObject({ isError: false });
  });

  it("refused, the call does not run and the model is told why", async () => {
    const ran: string[] = [];
    const { approver, asked } = recordingApprover([{ approved: false, reason: "the user refused" }]);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
      { text: "done" },
    ]);
    const harness = new Harness({
      workspace: dir,
      model,
      tools: [echoTool(ran)],
      approver,
      hooks: [askHook],
    });
    const result = await harness.run({ prompt: "go" });
    expect(ran).toEqual([]);
    expect(asked).toHaveLength(1);
    expect(toolResult(result.messages)).toMatchObject({ errorKind: "Denied" });
    const seen = JSON.stringify(model.requests[1]?.messages);
    expect(seen).toContain("writes outside the docs folder");
    expect(seen).toContain("the user refused");
  });

  it("asks again for a call the approver already approved, and never about one a hook blocked", async () => {
    const ran: string[] = [];
    const { approver, asked } = recordingApprover([
      { approved: true },
      { approved: true },
      { approved: false },
    ]);
    const harness = new Harness({
      workspace: dir,
      model: new ScriptedModel([
        {
          toolCalls: [
            { name: "echo", arguments: { text: "first" } },
            { name: "echo", arguments: { text: "blocked" } },
          ],
        },
        { text: "done" },
      ]),
      tools: [echoTool(ran, true)],
      approver,
      hooks: [
        defineHook({
          event: "before_tool_call",
          handler: (input) => {
            if ((input.args as { text: string }).text === "blocked") input.cancel("no");
            else input.requireApproval("double check");
          },
        }),
      ],
    });
    const result = await harness.run({ prompt: "go" });
    // Two approvals before the batch (the tool requires them), then the hook's one for "first".
    expect(asked.map((request) => request.reason)).toEqual([undefined, undefined, "double check"]);
    expect(ran).toEqual([]);
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.errorKind)).toEqual([
      "Denied",
      "Denied",
    ]);
  });

  it("is denied with no approver, and with an approver that answers by pausing", async () => {
    for (const approver of [undefined, askApprover]) {
      const ran: string[] = [];
      const model = new ScriptedModel([
        { toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
        { text: "done" },
      ]);
      const harness = new Harness({
        workspace: dir,
        model,
        tools: [echoTool(ran)],
        ...(approver ? { approver } : {}),
        hooks: [askHook],
      });
      const result = await harness.run({ prompt: "go" });
      expect(result.stopReason).toBe("completed");
      expect(ran).toEqual([]);
      expect(toolResult(result.messages)).toMatchObject({ errorKind: "Denied" });
      expect(JSON.stringify(model.requests[1]?.messages)).toMatch(
        approver ? /asks by pausing/ : /no approver is configured/,
      );
    }
  });

  it("asks about the calls of one batch one at a time, in the model's order", async () => {
    const ran: string[] = [];
    const order: string[] = [];
    let inFlight = 0;
    let overlapped = false;
    const approver: Approver = {
      decide: async (request) => {
        inFlight++;
        if (inFlight > 1) overlapped = true;
        order.push((request.args as { text: string }).text);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return { approved: true };
      },
    };
    const harness = new Harness({
      workspace: dir,
      model: new ScriptedModel([
        {
          toolCalls: ["a", "b", "c"].map((text) => ({ name: "echo", arguments: { text } })),
        },
        { text: "done" },
      ]),
      tools: [echoTool(ran)],
      approver,
      hooks: [askHook],
    });
    await harness.run({ prompt: "go" });
    expect(overlapped).toBe(false);
    expect(order).toEqual(["a", "b", "c"]);
    expect(ran).toEqual(["a", "b", "c"]);
  });
});
