import { type ApprovalRequest, type Approver, askApprover, defineTool, Harness } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { resultText } from "./helpers.js";

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

// A tool that says why each call asks, as a command policy would: the words come from the arguments.
const explained = defineTool({
  name: "change",
  description: "changes a file",
  inputSchema: z.object({ file: z.string(), why: z.string() }),
  annotations: { requires_approval: true },
  approvalScope: ({ why }) => ({ note: "asked every time", why }),
  execute: async ({ file }) => ({ content: `changed ${file}` }),
});

describe("ApprovalScope.why", () => {
  it("reaches the approver on one bounded line and tells the model why a refused call asked", async () => {
    const asked: ApprovalRequest[] = [];
    const refuser: Approver = {
      decide: async (request) => {
        asked.push(request);
        return { approved: false, reason: "the user refused" };
      },
    };
    const long = `touch b.txt: touch modifies files\n${"x".repeat(500)}`;
    const model = new ScriptedModel([
      {
        toolCalls: [
          {
            name: "change",
            id: "a",
            arguments: { file: "a.txt", why: "sed -i a.txt: sed -i modifies files" },
          },
          { name: "change", id: "b", arguments: { file: "b.txt", why: long } },
          { name: "change", id: "c", arguments: { file: "c.txt", why: "  \n " } },
        ],
      },
      { text: "done" },
    ]);
    const result = await new Harness({ model, tools: [explained], workspace: dir, approver: refuser }).run({
      prompt: "go",
    });
    expect(result.stopReason).toBe("completed");
    const whys = asked.map((request) => request.scope?.why);
    expect(whys[0]).toBe("sed -i a.txt: sed -i modifies files");
    expect(whys[1]?.startsWith("touch b.txt: touch modifies files xxx")).toBe(true);
    expect(whys[1]?.length).toBe(300);
    expect(whys[1]?.endsWith("…")).toBe(true);
    // Blank words are no reason: the scope goes without one, and what else it said stays.
    expect(asked[2]?.scope).toEqual({ note: "asked every time" });
    // The hook's field is left alone: these asks came from the tool.
    expect(asked.every((request) => request.reason === undefined)).toBe(true);
    const texts = result.messages.filter((m) => m.role === "tool").map(resultText);
    expect(texts[0]).toContain(
      "the user did not approve this call: the user refused (it asked because sed -i a.txt: sed -i modifies files)",
    );
    expect(texts[1]).toContain("(it asked because touch b.txt: touch modifies files xxx");
    expect(texts[1]?.length).toBeLessThan(500);
    expect(texts[2]).toContain("the user did not approve this call: the user refused");
    expect(texts[2]).not.toContain("asked because");
  });

  it("goes with a call the run pauses for, so whoever asks the person later can say why", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "change", id: "a", arguments: { file: "a.txt", why: "rm -rf build: rm deletes files" } },
        ],
      },
      { text: "done" },
    ]);
    const paused = await new Harness({
      model,
      tools: [explained],
      workspace: dir,
      approver: askApprover,
      approvalSecret: "a key for this test",
    }).run({ prompt: "go" });
    expect(paused.stopReason).toBe("approval_required");
    expect(paused.pendingApprovals?.map((pending) => pending.why)).toEqual([
      "rm -rf build: rm deletes files",
    ]);
  });
});
