import { Harness } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createShellTools } from "../src/index.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-shell-alias-"));
});
afterEach(() => cleanup());

it("bash accepts Codex's cmd for command and records the rename", async () => {
  const shell = await createShellTools();
  try {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "bash", arguments: { cmd: "echo aliased" } }] },
      { text: "done" },
    ]);
    const stream = new Harness({ model, tools: [shell.bash], workspace: dir }).stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    const requested = events.find((e) => e.type === "tool_call_requested");
    expect(requested?.type === "tool_call_requested" && requested.repairs).toEqual(["cmd→command"]);
    const answer = result.messages[2];
    expect(answer?.role === "tool" && !answer.isError).toBe(true);
    expect(JSON.stringify(answer)).toContain("aliased");
  } finally {
    await shell.stopAll();
  }
});
