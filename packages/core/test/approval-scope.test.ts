import { type ApprovalRequest, type Approver, defineTool, Harness } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

// A tool that names what "always" may cover: the first word of the command, except for "sh".
const scoped = defineTool({
  name: "run",
  description: "runs a command",
  inputSchema: z.object({ command: z.string() }),
  annotations: { requires_approval: true },
  approvalScope: ({ command }) => {
    if (command === "explode") throw new Error("scope crashed");
    const first = command.split(" ")[0] ?? "";
    return first === "sh" ? { note: "a shell runs anything" } : { always: { key: first, label: first } };
  },
  execute: async ({ command }) => ({ content: `ran ${command}` }),
});

const plain = defineTool({
  name: "plain",
  description: "no scope of its own",
  inputSchema: z.object({}),
  annotations: { requires_approval: true },
  execute: async () => ({ content: "ok" }),
});

function recorder(asked: ApprovalRequest[]): Approver {
  return {
    decide: async (request) => {
      asked.push(request);
      return { approved: true };
    },
  };
}

describe("ApprovalRequest.scope", () => {
  it("carries the tool's scope to the approver, fails closed on a throw, and is absent without the hook", async () => {
    const asked: ApprovalRequest[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "run", id: "a", arguments: { command: "npm test" } },
          { name: "run", id: "b", arguments: { command: "sh -c x" } },
          { name: "run", id: "c", arguments: { command: "explode" } },
          { name: "plain", id: "d", arguments: {} },
        ],
      },
      { text: "done" },
    ]);
    const result = await new Harness({
      model,
      tools: [scoped, plain],
      workspace: dir,
      approver: recorder(asked),
    }).run({ prompt: "go" });
    expect(result.stopReason).toBe("completed");
    const scopes = Object.fromEntries(asked.map((request) => [request.toolCall.id, request.scope]));
    expect(scopes.a).toEqual({ always: { key: "npm", label: "npm" } });
    expect(scopes.b).toEqual({ note: "a shell runs anything" });
    expect(scopes.c?.always).toBeUndefined();
    expect(scopes.c?.note).toMatch(/scope crashed/);
    expect(scopes.d).toBeUndefined();
  });
});
