import { access } from "node:fs/promises";
import { join } from "node:path";
import { type ApprovalRequest, Harness } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { createShellTools, LocalRunner } from "@bridle/tools-shell";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hooksFromSettings } from "../src/index.js";
import { script, sentText } from "./setup.js";

let dir: string;
let cleanup: () => Promise<void>;
const stops: (() => Promise<void>)[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-hook-ask-"));
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await cleanup();
});

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** A node script that asks the user about every bash call that deletes, and allows the rest. */
const ASK = `#!/usr/bin/env node
let text = "";
for await (const chunk of process.stdin) text += chunk;
const input = JSON.parse(text);
if (/\\brm\\b/.test(input.tool_input.command)) {
  console.log(JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "ask",
      permissionDecisionReason: "this deletes files",
    },
  }));
}
`;

/** A run of one bash call under the asking hook, with an approver that answers `approved`. */
async function run(command: string, approved: boolean) {
  const asked: ApprovalRequest[] = [];
  const guard = await script(dir, "ask.mjs", ASK);
  const scripts = hooksFromSettings(
    { PreToolUse: [{ matcher: "Bash|bash", hooks: [{ type: "command", command: guard }] }] },
    { cwd: dir },
  );
  const shell = await createShellTools({ runner: new LocalRunner() });
  stops.push(() => shell.stopAll());
  const model = new ScriptedModel([
    { toolCalls: [{ name: "bash", arguments: { command } }] },
    { text: "done" },
  ]);
  const harness = new Harness({
    workspace: dir,
    model,
    tools: [shell.bash],
    hooks: [...scripts.hooks],
    // The bash tool's own approval is given (as by a policy, or --yes); what the hook asks for goes to
    // the person, who answers `approved`.
    approver: {
      decide: async (request) => {
        if (request.reason === undefined) return { approved: true };
        asked.push(request);
        return approved ? { approved: true } : { approved: false, reason: "the user refused" };
      },
    },
  });
  const result = await harness.run({ prompt: "go" });
  return { asked, model, result };
}

describe('PreToolUse permissionDecision "ask"', () => {
  it("asks the person with the hook's reason; allowed, the call runs", async () => {
    const { asked, result } = await run("touch doomed && rm doomed && touch kept", true);
    expect(asked.map((request) => request.reason)).toEqual(["this deletes files"]);
    expect(asked[0]?.toolCall.name).toBe("bash");
    expect(result.messages.find((m) => m.role === "tool")).toMatchObject({ isError: false });
    expect(await exists(join(dir, "kept"))).toBe(true);
  });

  it("refused, the call does not run and the model is told why", async () => {
    const { asked, model, result } = await run("touch kept && rm -f kept && touch ran", false);
    expect(asked).toHaveLength(1);
    expect(await exists(join(dir, "ran"))).toBe(false);
    expect(result.messages.find((m) => m.role === "tool")).toMatchObject({ errorKind: "Denied" });
    const second = sentText(model.requests[1]?.messages);
    expect(second).toContain("this deletes files");
    expect(second).toContain("the user refused");
  });

  it("a call the hook does not ask about is not put to the person", async () => {
    const { asked } = await run("touch plain", false);
    expect(asked).toEqual([]);
    expect(await exists(join(dir, "plain"))).toBe(true);
  });
});
