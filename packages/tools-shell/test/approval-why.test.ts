import { existsSync } from "node:fs";
import { join } from "node:path";
import { type ApprovalRequest, type Approver, Harness, type Message, Workspace } from "@bridle/core";
import { CommandPolicy, type PolicyResult } from "@bridle/shell-policy";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BubblewrapRunner, createShellTools, LocalRunner } from "../src/index.js";
import type { CommandArgs } from "../src/tools/environment.js";

// Why a bash call asks, as the approver and (after a refusal) the model see it: the command policy's own
// verdict, judged once for the approval and the execution together.
const bwrap = await BubblewrapRunner.probe();

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-why-"));
});
afterEach(() => cleanup());

/** The real policy, counting the commands it judges. */
class CountingPolicy extends CommandPolicy {
  readonly judged: string[] = [];
  override check(command: string, workspace: Workspace | string, cwd?: string): Promise<PolicyResult> {
    this.judged.push(command);
    return super.check(command, workspace, cwd);
  }
}

function refusing(asked: ApprovalRequest[]): Approver {
  return {
    decide: async (request) => {
      asked.push(request);
      return { approved: false, reason: "the user refused" };
    },
  };
}

function toolTexts(messages: readonly Message[]): string[] {
  return messages.flatMap((message) =>
    message.role === "tool"
      ? [message.content.map((part) => (part.type === "text" ? part.text : "")).join("")]
      : [],
  );
}

describe("why a bash call asks", () => {
  it("carries the policy's verdict to the approver and, once refused, to the model, judging once", async () => {
    const policy = new CountingPolicy({ mode: "read-only" });
    const shell = await createShellTools({ runner: new LocalRunner(), permissionMode: "workspace", policy });
    const expected = (await new CommandPolicy({ mode: "read-only" }).check("touch b.txt", dir, dir)).reasons
      .slice(0, 3)
      .join("; ");
    expect(expected).toContain("touch modifies files");
    const asked: ApprovalRequest[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "bash", id: "t1", arguments: { command: "touch b.txt" } }] },
      { text: "done" },
    ]);
    const result = await new Harness({
      model,
      tools: shell.tools,
      workspace: dir,
      approver: refusing(asked),
    }).run({ prompt: "make b.txt" });
    expect(result.stopReason).toBe("completed");
    expect(asked.map((request) => request.scope?.why)).toEqual([expected]);
    expect(asked[0]?.reason).toBeUndefined();
    expect(policy.judged).toEqual(["touch b.txt"]);
    expect(existsSync(join(dir, "b.txt"))).toBe(false);
    const [text] = toolTexts(result.messages);
    expect(text).toContain(
      `the user did not approve this call: the user refused (it asked because ${expected})`,
    );
  });

  it("says nothing of a call that runs unasked, and names the script or the escalation that asks", async () => {
    const shell = await createShellTools({ runner: new LocalRunner(), permissionMode: "ask" });
    const workspace = new Workspace(dir);
    const why = async (args: CommandArgs) => (await shell.environment.approvalScope(args, workspace)).why;
    expect(await why({ command: "ls" })).toBeUndefined();
    expect(await why({ command: "ls", runs: ["touch made.txt"] })).toMatch(
      /^the script it runs: touch made\.txt: touch modifies files/,
    );
    expect(
      await why({
        command: "ls",
        sandbox_permissions: "require_escalated",
        justification: "it needs the network",
      }),
    ).toBe("this command asks to run outside the sandbox");
  });

  it.skipIf(!bwrap.available)("names the user's ask rule that makes a sandboxed command ask", async () => {
    const shell = await createShellTools({
      runner: new BubblewrapRunner(),
      permissionMode: "workspace",
      policy: { rules: [{ decision: "ask", argv: ["git", "push"] }] },
    });
    const asked: ApprovalRequest[] = [];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "bash", id: "p1", arguments: { command: "git push origin main" } }] },
      { text: "done" },
    ]);
    const result = await new Harness({
      model,
      tools: shell.tools,
      workspace: dir,
      approver: refusing(asked),
    }).run({ prompt: "push" });
    expect(asked.map((request) => request.scope?.why)).toEqual([
      'your ask rule "git push" matches this command',
    ]);
    expect(toolTexts(result.messages)[0]).toContain(
      '(it asked because your ask rule "git push" matches this command)',
    );
  });
});
