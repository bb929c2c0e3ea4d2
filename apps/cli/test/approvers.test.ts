import type { ApprovalRequest, ApprovalScope } from "@bridle/core";
import { describe, expect, it } from "vitest";
import { denyWithoutTerminal, TerminalApprover } from "../src/terminal/approvers.js";

// The terminal approver's questions and what "always" remembers, answered as a person would type.
function request(name: string, command: string, scope?: ApprovalScope): ApprovalRequest {
  return {
    runId: "r",
    toolCall: { type: "tool_call", id: `c-${command}`, name, arguments: JSON.stringify({ command }) },
    args: { command },
    annotations: {},
    ...(scope ? { scope } : {}),
  };
}

function person(...answers: string[]) {
  const questions: string[] = [];
  const approver = new TerminalApprover(async (question) => {
    questions.push(question);
    return answers.shift() ?? "n";
  });
  return { approver, questions };
}

const signal = new AbortController().signal;
const npmTest: ApprovalScope = { always: { key: "exact:npm test", label: "npm test" } };

describe("TerminalApprover", () => {
  it("remembers what the scope names, not the tool", async () => {
    const { approver, questions } = person("a", "n");
    expect(await approver.decide(request("bash", "npm test", npmTest), signal)).toEqual({ approved: true });
    expect(questions[0]).toMatch(/\[a\]lways for npm test: $/);
    expect(await approver.decide(request("bash", "npm test", npmTest), signal)).toEqual({ approved: true });
    expect(questions).toHaveLength(1);
    const build = { always: { key: "exact:npm run build", label: "npm run build" } };
    expect((await approver.decide(request("bash", "npm run build", build), signal)).approved).toBe(false);
    expect(questions).toHaveLength(2);
  });

  it("keeps a tool without a scope per tool, and offers no always where the scope has none", async () => {
    const { approver, questions } = person("a", "a", "n");
    await approver.decide(request("write_file", "x"), signal);
    expect(questions[0]).toMatch(/\[a\]lways for write_file: $/);
    expect((await approver.decide(request("write_file", "y"), signal)).approved).toBe(true);
    // "a" where always is not offered approves this call only.
    const shell: ApprovalScope = { note: "bash is a shell" };
    expect((await approver.decide(request("bash", "bash -c x", shell), signal)).approved).toBe(true);
    expect(questions[1]).toMatch(/\[y\]es \/ \[n\]o \(bash is a shell\): $/);
    expect((await approver.decide(request("bash", "bash -c x", shell), signal)).approved).toBe(false);
    expect(questions).toHaveLength(3);
  });

  it("asks about every escalation, showing the justification escaped", async () => {
    const { approver, questions } = person("y", "y");
    const scope: ApprovalScope = {
      note: "asked every time",
      escalation: { justification: "needs\u001b[2J network" },
    };
    await approver.decide(request("bash", "npm install", scope), signal);
    await approver.decide(request("bash", "npm install", scope), signal);
    expect(questions).toHaveLength(2);
    expect(questions[0]).toMatch(
      /^Run OUTSIDE the sandbox \(reason given: "needs\\x1b\[2J network"\): bash npm install\?/,
    );
    expect(questions[0]).not.toContain("\u001b");
  });

  it("asks about a call a hook asked about even after always, showing the hook's reason", async () => {
    const { approver, questions } = person("a", "n");
    expect((await approver.decide(request("bash", "npm test", npmTest), signal)).approved).toBe(true);
    const asked = { ...request("bash", "npm test", npmTest), reason: "tests\u001b[2J touch the network" };
    expect(await approver.decide(asked, signal)).toEqual({ approved: false, reason: "the user refused" });
    expect(questions).toHaveLength(2);
    expect(questions[1]).toMatch(
      /^A hook asks: tests\\x1b\[2J touch the network\. Allow bash .*\[y\]es \/ \[n\]o: $/,
    );
  });

  it("without a terminal, tells the model what to do instead of an escalation", async () => {
    const plain = await denyWithoutTerminal.decide(request("bash", "rm x", {}), signal);
    expect(plain).toMatchObject({ approved: false, reason: expect.stringMatching(/--yes/) });
    const escalated = await denyWithoutTerminal.decide(
      request("bash", "curl x", { escalation: { justification: "net" } }),
      signal,
    );
    expect(escalated).toMatchObject({
      approved: false,
      reason: expect.stringMatching(/leave out sandbox_permissions/),
    });
  });
});
