import { type ApprovalRequest, type Approver, defineTool, Harness, Workspace } from "@bridle/core";
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

function runTool(log: string[], seen: Workspace[]) {
  return defineTool({
    name: "run",
    description: "runs a command",
    inputSchema: z.object({ command: z.string() }),
    needsApproval: async ({ command }, context) => {
      seen.push(context.workspace);
      if (command === "explode") throw new Error("policy crashed");
      return command.startsWith("rm");
    },
    execute: async ({ command }) => {
      log.push(command);
      return { content: `ran ${command}` };
    },
  });
}

function script(...commands: string[]) {
  return new ScriptedModel([
    { toolCalls: commands.map((command, i) => ({ name: "run", id: `c${i}`, arguments: { command } })) },
    { text: "done" },
  ]);
}

describe("Tool.needsApproval", () => {
  it("asks the approver only for the calls it flags, with the run's workspace", async () => {
    const log: string[] = [];
    const seen: Workspace[] = [];
    const asked: ApprovalRequest[] = [];
    const approver: Approver = {
      decide: async (request) => {
        asked.push(request);
        return { approved: false, reason: "not today" };
      },
    };
    const harness = new Harness({
      model: script("ls", "rm -rf x"),
      tools: [runTool(log, seen)],
      workspace: dir,
      approver,
    });
    const result = await harness.run({ prompt: "go" });
    expect(log).toEqual(["ls"]);
    expect(asked.map((request) => request.args)).toEqual([{ command: "rm -rf x" }]);
    expect(
      seen.every((workspace) => workspace instanceof Workspace && workspace.root === new Workspace(dir).root),
    ).toBe(true);
    const denied = result.messages.find((m) => m.role === "tool" && m.toolCallId === "c1");
    expect(resultText(denied)).toMatch(/not today/);
  });

  it("refuses flagged calls when the run has no approver, and runs the others", async () => {
    const log: string[] = [];
    const harness = new Harness({ model: script("ls", "rm x"), tools: [runTool(log, [])], workspace: dir });
    const result = await harness.run({ prompt: "go" });
    expect(log).toEqual(["ls"]);
    const refused = result.messages.find((m) => m.role === "tool" && m.toolCallId === "c1");
    expect(refused?.role === "tool" && refused.errorKind).toBe("Denied");
  });

  it("treats a throwing needsApproval as needing approval", async () => {
    const log: string[] = [];
    const approved: string[] = [];
    const approver: Approver = {
      decide: async (request) => {
        approved.push((request.args as { command: string }).command);
        return { approved: true };
      },
    };
    const harness = new Harness({
      model: script("explode"),
      tools: [runTool(log, [])],
      workspace: dir,
      approver,
    });
    await harness.run({ prompt: "go" });
    expect(approved).toEqual(["explode"]);
    expect(log).toEqual(["explode"]);
  });
});
