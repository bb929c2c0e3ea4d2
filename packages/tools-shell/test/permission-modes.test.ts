import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ApprovalRequest, type Approver, Harness, type ToolResultMessage, textOf } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  BubblewrapRunner,
  type CommandRunner,
  createShellTools,
  LocalRunner,
  type PermissionMode,
} from "../src/index.js";

// Each permission mode × {a read-only command, a write inside the workspace, a write outside it, an
// escalation} × {the bubblewrap sandbox, no sandbox}, run for real through a Harness whose approver
// records what it is asked and refuses it: the outcome is what the tools-shell README's table says.
const bwrap = await BubblewrapRunner.probe();

type Outcome = "ran" | "failed inside" | "asked" | "refused";
type Case = "read" | "write" | "outside" | "escalate";

const TABLE: Record<PermissionMode, Record<"sandbox" | "none", Record<Case, Outcome>>> = {
  "read-only": {
    sandbox: { read: "ran", write: "refused", outside: "refused", escalate: "refused" },
    none: { read: "ran", write: "refused", outside: "refused", escalate: "refused" },
  },
  workspace: {
    sandbox: { read: "ran", write: "ran", outside: "failed inside", escalate: "asked" },
    none: { read: "ran", write: "asked", outside: "refused", escalate: "asked" },
  },
  ask: {
    sandbox: { read: "ran", write: "asked", outside: "asked", escalate: "asked" },
    none: { read: "ran", write: "asked", outside: "refused", escalate: "asked" },
  },
  "full-access": {
    // No sandbox to run in: asking for one with full access is a configuration error (below).
    sandbox: { read: "ran", write: "ran", outside: "ran", escalate: "ran" },
    none: { read: "ran", write: "ran", outside: "ran", escalate: "ran" },
  },
};

let dir: string;
let outside: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-modes-"));
  await mkdir(join(dir, "ws"));
  await mkdir(join(dir, "outside"));
  outside = join(dir, "outside");
  await writeFile(join(dir, "ws", "f.txt"), "hello\n");
});
afterEach(() => cleanup());

function args(kind: Case): Record<string, unknown> {
  switch (kind) {
    case "read":
      return { command: "cat f.txt" };
    case "write":
      return { command: "sed -i s/hello/bye/ f.txt" };
    case "outside":
      return { command: `touch ${join(outside, "x")}` };
    case "escalate":
      return {
        command: "cat f.txt",
        sandbox_permissions: "require_escalated",
        justification: "the test asks to leave the sandbox",
      };
  }
}

function recorder(asked: ApprovalRequest[], approved: boolean): Approver {
  return {
    decide: async (request) => {
      asked.push(request);
      return approved ? { approved } : { approved, reason: "nobody here" };
    },
  };
}

async function outcomeOf(mode: PermissionMode, runner: CommandRunner, kind: Case): Promise<Outcome> {
  const asked: ApprovalRequest[] = [];
  const approver = recorder(asked, false);
  const shell = await createShellTools({ runner, permissionMode: mode });
  const model = new ScriptedModel([
    { toolCalls: [{ name: "bash", id: "c", arguments: args(kind) }] },
    { text: "done" },
  ]);
  const workspace = join(dir, "ws");
  const harness = new Harness({ model, tools: shell.tools, hooks: shell.hooks, workspace, approver });
  const { messages } = await harness.run({ prompt: "go" });
  await shell.stopAll();
  const result = messages.find((m): m is ToolResultMessage => m.role === "tool" && m.toolCallId === "c");
  if (!result) throw new Error("no result");
  if (asked.length > 0) return "asked";
  if (result.errorKind) return "refused";
  const parsed = JSON.parse(textOf(result.content)) as { exit_code: number };
  if (kind === "write") expect(readFileSync(join(workspace, "f.txt"), "utf8")).toBe("bye\n");
  if (kind === "outside") {
    // Failing inside the sandbox leaves the host untouched; running outside it writes there.
    expect(existsSync(join(outside, "x"))).toBe(parsed.exit_code === 0);
  }
  return parsed.exit_code === 0 ? "ran" : "failed inside";
}

describe("permission modes", () => {
  for (const mode of ["read-only", "workspace", "ask", "full-access"] as const) {
    it(`${mode} without a sandbox (LocalRunner) gives the table's outcomes`, async () => {
      const got: Record<string, Outcome> = {};
      for (const kind of ["read", "write", "outside", "escalate"] as const) {
        got[kind] = await outcomeOf(mode, new LocalRunner(), kind);
        await writeFile(join(dir, "ws", "f.txt"), "hello\n");
      }
      expect(got).toEqual(TABLE[mode].none);
    });

    it.skipIf(!bwrap.available)(
      `${mode} with the bubblewrap sandbox gives the table's outcomes`,
      async () => {
        if (mode === "full-access") {
          await expect(
            createShellTools({ runner: new BubblewrapRunner(), permissionMode: mode }),
          ).rejects.toThrow(/full-access runs commands without a sandbox/);
          return;
        }
        const got: Record<string, Outcome> = {};
        for (const kind of ["read", "write", "outside", "escalate"] as const) {
          got[kind] = await outcomeOf(mode, new BubblewrapRunner(), kind);
          await writeFile(join(dir, "ws", "f.txt"), "hello\n");
        }
        expect(got).toEqual(TABLE[mode].sandbox);
      },
    );
  }

  it("refuses an escalation without a justification as invalid input, before anyone is asked", async () => {
    const asked: ApprovalRequest[] = [];
    const shell = await createShellTools({ permissionMode: "workspace" });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "bash", id: "c", arguments: { command: "ls", sandbox_permissions: "require_escalated" } },
        ],
      },
      { text: "done" },
    ]);
    const approver = recorder(asked, true);
    const { messages } = await new Harness({
      model,
      tools: shell.tools,
      workspace: join(dir, "ws"),
      approver,
    }).run({
      prompt: "go",
    });
    const result = messages.find((m): m is ToolResultMessage => m.role === "tool" && m.toolCallId === "c");
    expect(asked).toEqual([]);
    expect(result?.errorKind).toBe("InvalidInput");
    expect(textOf(result?.content ?? [])).toMatch(/needs a justification/);
  });

  it.skipIf(!bwrap.available)(
    "runs an approved escalation outside the sandbox, where it sees what the sandbox withholds; the policy's denials still hold",
    async () => {
      const shell = await createShellTools({ runner: new BubblewrapRunner(), permissionMode: "workspace" });
      const asked: ApprovalRequest[] = [];
      const approver = recorder(asked, true);
      await writeFile(join(outside, "marker.txt"), "");
      const target = join(outside, "escalated");
      const model = new ScriptedModel([
        {
          toolCalls: [
            { name: "bash", id: "in", arguments: { command: `ls ${outside}` } },
            {
              name: "bash",
              id: "out",
              arguments: {
                command: `ls ${outside}`,
                sandbox_permissions: "require_escalated",
                justification: "list it",
              },
            },
            {
              name: "bash",
              id: "denied",
              arguments: {
                command: `touch ${target}`,
                sandbox_permissions: "require_escalated",
                justification: "write it",
              },
            },
          ],
        },
        { text: "done" },
      ]);
      const { messages } = await new Harness({
        model,
        tools: shell.tools,
        workspace: join(dir, "ws"),
        approver,
      }).run({
        prompt: "go",
      });
      const text = (id: string) =>
        textOf(
          messages.find((m): m is ToolResultMessage => m.role === "tool" && m.toolCallId === id)?.content ??
            [],
        );
      expect(asked.map((r) => r.toolCall.id)).toEqual(["out"]);
      expect(asked[0]?.scope?.escalation).toEqual({ justification: "list it" });
      expect(asked[0]?.scope?.always).toBeUndefined();
      expect(JSON.parse(text("in")).exit_code).not.toBe(0);
      expect(JSON.parse(text("out")).stdout).toBe("marker.txt\n");
      // Escalation lifts the sandbox, not the policy's denials (writes outside, secrets, protected paths).
      expect(text("denied")).toMatch(/policy denies/);
      expect(existsSync(target)).toBe(false);
    },
  );

  it.skipIf(!bwrap.available)("holds the user's deny and ask rules inside the sandbox too", async () => {
    const shell = await createShellTools({
      runner: new BubblewrapRunner(),
      permissionMode: "workspace",
      policy: {
        rules: [
          { decision: "deny", argv: ["git", "push"] },
          { decision: "ask", argv: ["rm"] },
        ],
      },
    });
    const asked: ApprovalRequest[] = [];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "bash", id: "push", arguments: { command: "git push origin main" } },
          { name: "bash", id: "rm", arguments: { command: "rm f.txt" } },
          { name: "bash", id: "touch", arguments: { command: "touch g.txt" } },
        ],
      },
      { text: "done" },
    ]);
    const workspace = join(dir, "ws");
    const { messages } = await new Harness({
      model,
      tools: shell.tools,
      workspace,
      approver: recorder(asked, false),
    }).run({ prompt: "go" });
    const result = (id: string) =>
      messages.find((m): m is ToolResultMessage => m.role === "tool" && m.toolCallId === id);
    expect(result("push")?.errorKind).toBe("Denied");
    expect(textOf(result("push")?.content ?? [])).toMatch(/your deny rule "git push" matches/);
    expect(asked.map((r) => r.toolCall.id)).toEqual(["rm"]);
    expect(existsSync(join(workspace, "f.txt"))).toBe(true);
    expect(existsSync(join(workspace, "g.txt"))).toBe(true);
  });
});
