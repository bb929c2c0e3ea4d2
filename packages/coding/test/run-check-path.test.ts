import type { RunEvent } from "@bridle/core";
import { CommandPolicy, type PolicyResult } from "@bridle/shell-policy";
import { afterEach, describe, expect, it } from "vitest";
import { buildEvidence } from "../src/index.js";
import { call, codingAgent, tempRepo } from "./repo.js";

// run_check takes the shell tools' one command path (ShellEnvironment.admit, run, describeExit): the
// refusals bash gives, in its words, the user's rules honoured, one judgement per command for approval
// and run.

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

/** A library user's policy that counts what it judges. */
class CountingPolicy extends CommandPolicy {
  readonly judged: string[] = [];
  override check(...args: Parameters<CommandPolicy["check"]>): Promise<PolicyResult> {
    this.judged.push(args[0]);
    return super.check(...args);
  }
}

function resultText(events: readonly RunEvent[], id: string): string {
  for (const event of events) {
    if (event.type === "tool_call_completed" && event.result.toolCallId === id)
      return event.result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  }
  return "";
}

async function agentIn(files: Record<string, string>, script: Parameters<typeof codingAgent>[1], shell = {}) {
  const repo = await tempRepo(files);
  cleanups.push(repo.cleanup);
  const agent = await codingAgent(repo.dir, script, { shell });
  cleanups.push(() => agent.close());
  return agent;
}

describe("run_check on the shell tools' command path", () => {
  it("skips what the user's deny rule names, with the words bash refuses it in", async () => {
    const rules = [{ decision: "deny" as const, argv: ["npm"] }];
    const agent = await agentIn(
      { "package.json": JSON.stringify({ scripts: { test: "wc -l package.json" } }) },
      [
        { toolCalls: [{ id: "check", name: "run_check", arguments: { kind: "test" } }] },
        { toolCalls: [{ id: "bash", name: "bash", arguments: { command: "npm run test" } }] },
        { text: "done" },
      ],
      { policy: { rules } },
    );
    const { events } = await agent.run("test");
    const check = buildEvidence(events).checks[0];
    expect(check).toMatchObject({ kind: "test", status: "skipped", command: "npm run test" });
    const words = 'your deny rule "npm" matches this command; do it another way or ask the user';
    expect(check?.note).toBe(words);
    expect(resultText(events, "bash")).toContain(words);
    expect(buildEvidence(events).commands).toEqual([]);
  });

  it("names the package script when a rule refuses what it runs", async () => {
    const agent = await agentIn(
      { "package.json": JSON.stringify({ scripts: { test: "wc -l package.json" } }) },
      [call("run_check", { kind: "test" }), { text: "done" }],
      { policy: { rules: [{ decision: "deny", argv: ["wc"] }] } },
    );
    const { events } = await agent.run("test");
    expect(buildEvidence(events).checks[0]?.note).toBe(
      'your deny rule "wc" matches the script it runs; do it another way or ask the user',
    );
  });

  it("judges the command and its script once each, for approval and run together", async () => {
    const policy = new CountingPolicy({ mode: "read-only" });
    const agent = await agentIn(
      { "package.json": JSON.stringify({ scripts: { test: "wc -l package.json" } }) },
      [call("run_check", { kind: "test" }), { text: "done" }],
      { policy },
    );
    const { events } = await agent.run("test");
    // npm asks (the approver in these tests says yes), and the check runs.
    expect(events.some((e) => e.type === "approval_requested" && e.toolCall.name === "run_check")).toBe(true);
    expect(buildEvidence(events).checks[0]).toMatchObject({ kind: "test", status: "passed" });
    expect(policy.judged).toEqual(["npm run test", "wc -l package.json"]);
  });
});
