import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type FakeProviderServer, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Editor, newSession, permissionText, startEditor } from "./acp-editor.js";
import { call, fakeOpenAI, toolOutputsSent } from "./cli-harness.js";

// An editor's permission card says why a command asks (the command policy's verdict), and the model hears
// it with the editor's refusal.
let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
const editors: Editor[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-acp-why-"));
  repo = join(dir, "repo");
  execFileSync("git", ["init", "-q", repo]);
});
afterEach(async () => {
  for (const editor of editors.splice(0)) await editor.close();
  await server?.close();
  server = undefined;
  await cleanup();
});

describe("bridle acp's permission request", () => {
  it("carries the policy's reason in the tool call's content, and the refusal tells the model", async () => {
    server = await fakeOpenAI([
      {
        toolCalls: [
          call("touch", "bash", { command: "touch made.txt" }),
          call("list", "bash", { command: "ls" }),
        ],
      },
      { text: "Left it." },
    ]);
    const editor = startEditor(dir, server, "--permission-mode", "ask");
    editors.push(editor);
    editor.answer = () => "reject";
    const session = await newSession(editor, repo);
    const answer = await editor.connection.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "make the file" }],
    });
    expect(answer.stopReason, editor.stderr()).toBe("end_turn");
    // Only the command that writes asked; ls is proven read-only and ran unasked.
    expect(editor.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["touch"]);
    expect(permissionText(editor.permissions[0])).toMatch(
      /^Why it asks: touch made\.txt: touch modifies files/,
    );
    expect(editor.permissions[0]?.toolCall.title).toBe("touch made.txt");
    expect(existsSync(join(repo, "made.txt"))).toBe(false);
    expect(toolOutputsSent(server)[0]).toContain(
      "the user refused (it asked because touch made.txt: touch modifies files",
    );
  }, 120_000);
});
