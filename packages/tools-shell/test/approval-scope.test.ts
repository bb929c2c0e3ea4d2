import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ApprovalScope, Workspace } from "@bridle/core";
import { tempWorkspace } from "@bridle/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BubblewrapRunner, createShellTools, LocalRunner, type ShellTools } from "../src/index.js";

// What "always" may cover for one bash call, as the tool hands it to the approver: a rule as narrow as
// the policy's suggested_rule, a script runner's exact line where the sandbox bounds it, and nothing for
// shells, interpreters, package runners, compound lines or escalations.
const bwrap = await BubblewrapRunner.probe();

let dir: string;
let cleanup: () => Promise<void>;
let local: ShellTools;
let sandboxed: ShellTools | undefined;
beforeAll(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-scope-"));
  await writeFile(join(dir, "package.json"), '{"scripts":{"test":"node --test"}}');
  local = await createShellTools({ runner: new LocalRunner(), permissionMode: "ask" });
  if (bwrap.available)
    sandboxed = await createShellTools({ runner: new BubblewrapRunner(), permissionMode: "ask" });
});
afterAll(() => cleanup());

async function scope(shell: ShellTools, args: Record<string, unknown>): Promise<ApprovalScope> {
  const hook = shell.bash.approvalScope;
  if (!hook) throw new Error("bash has no approvalScope");
  const workspace = new Workspace(dir);
  return hook(shell.bash.inputSchema.parse(args), {
    runId: "r",
    workspace,
    signal: new AbortController().signal,
  });
}

describe("bash's approval scope", () => {
  it("offers the policy's suggested rule, keyed so only a command with the same rule matches", async () => {
    const first = await scope(local, { command: "sed -i s/a/b/ x" });
    expect(first.always?.label).toBe("sed");
    expect((await scope(local, { command: "sed -i s/c/d/ y" })).always?.key).toBe(first.always?.key);
    expect((await scope(local, { command: "touch y" })).always?.key).not.toBe(first.always?.key);
  });

  it("remembers a deleting command only for exactly what it deletes", async () => {
    const build = await scope(local, { command: "rm -rf build" });
    expect(build.always?.label).toBe("rm -rf build");
    expect((await scope(local, { command: "rm -rf build" })).always?.key).toBe(build.always?.key);
    for (const command of ["rm -rf src", "rm -r build", "rm -rf build src"]) {
      expect((await scope(local, { command })).always?.key, command).not.toBe(build.always?.key);
    }
    expect((await scope(local, { command: "rm -rf 'a b'" })).always).toBeUndefined();
  });

  it("never offers always for shells, interpreters, package runners, compound lines or escalations", async () => {
    for (const command of ["bash -c 'rm x'", "python3 x.py", "node x.js", "npx something", "npm exec foo"]) {
      expect((await scope(local, { command })).always, command).toBeUndefined();
    }
    const compound = await scope(local, { command: "rm -rf a && sed -i s/a/b/ x" });
    expect(compound.always).toBeUndefined();
    expect(compound.note).toMatch(/more than one command/);
    const escalated = await scope(local, {
      command: "rm -rf build",
      sandbox_permissions: "require_escalated",
      justification: "because",
    });
    expect(escalated.always).toBeUndefined();
    expect(escalated.escalation).toEqual({ justification: "because" });
  });

  it("offers a script runner's exact line only where the sandbox bounds it: npm test, never npm", async () => {
    const unsandboxed = await scope(local, { command: "npm test" });
    expect(unsandboxed.always).toBeUndefined();
    expect(unsandboxed.note).toMatch(/no sandbox/);
    if (!sandboxed) return;
    const test = await scope(sandboxed, { command: "npm test" });
    expect(test.always?.label).toBe("npm test");
    const build = await scope(sandboxed, { command: "npm run build" });
    expect(build.always?.label).toBe("npm run build");
    expect(build.always?.key).not.toBe(test.always?.key);
    expect((await scope(sandboxed, { command: "npm test -- --watch" })).always?.key).not.toBe(
      test.always?.key,
    );
    expect((await scope(sandboxed, { command: "npm test && npm run build" })).always).toBeUndefined();
  });
});
