import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type Approver,
  Harness,
  type Message,
  type RunEvent,
  type ToolResultMessage,
  textOf,
} from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createShellTools } from "../src/index.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-shell-run-"));
  await writeFile(join(dir, "file.txt"), "hello\n");
});
afterEach(() => cleanup());

function script() {
  return new ScriptedModel([
    {
      toolCalls: [
        { name: "bash", id: "allowed", arguments: { command: "cat file.txt" } },
        { name: "bash", id: "asked", arguments: { command: "rm file.txt" } },
        { name: "bash", id: "denied", arguments: { command: "echo x > /etc/bridle-denied" } },
      ],
    },
    { text: "done" },
  ]);
}

function result(messages: readonly Message[], id: string): ToolResultMessage {
  const found = messages.find((m): m is ToolResultMessage => m.role === "tool" && m.toolCallId === id);
  if (!found) throw new Error(`no result for ${id}`);
  return found;
}

describe("the bash tool in a run", () => {
  it("runs what the policy allows, refuses what needs approval when there is no approver, denies with reasons", async () => {
    const shell = await createShellTools();
    const harness = new Harness({ model: script(), tools: shell.tools, hooks: shell.hooks, workspace: dir });
    const { messages } = await harness.run({ prompt: "go" });
    expect(JSON.parse(textOf(result(messages, "allowed").content)).stdout).toBe("hello\n");
    expect(result(messages, "asked").errorKind).toBe("Denied");
    expect(textOf(result(messages, "asked").content)).toMatch(/requires approval/);
    expect(existsSync(join(dir, "file.txt"))).toBe(true);
    expect(result(messages, "denied").errorKind).toBe("Denied");
    expect(textOf(result(messages, "denied").content)).toMatch(/outside the workspace/);
  });

  it("asks the approver only for the command the policy could not allow, and streams progress", async () => {
    const asked: string[] = [];
    const approver: Approver = {
      decide: async (request) => {
        asked.push((request.args as { command: string }).command);
        return { approved: true };
      },
    };
    const shell = await createShellTools();
    const harness = new Harness({
      model: script(),
      tools: shell.tools,
      hooks: shell.hooks,
      workspace: dir,
      approver,
    });
    const events: RunEvent[] = await collectEvents(harness.stream({ prompt: "go" }));
    expect(asked).toEqual(["rm file.txt"]);
    expect(existsSync(join(dir, "file.txt"))).toBe(false);
    const progress = events.filter((e) => e.type === "tool_progress");
    expect(progress).toContainEqual(
      expect.objectContaining({ toolCallId: "allowed", data: { stream: "stdout", text: "hello\n" } }),
    );
    const completed = events.filter((e) => e.type === "tool_call_completed");
    const denied = completed.find(
      (e) => e.type === "tool_call_completed" && e.result.toolCallId === "denied",
    );
    expect(denied?.type === "tool_call_completed" && denied.result.errorKind).toBe("Denied");
  });
});
