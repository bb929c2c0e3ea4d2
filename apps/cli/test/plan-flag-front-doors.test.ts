// --plan where it means something and a clear refusal where it does not: `bridle acp --plan` starts each new
// session in plan mode; a durable run has nobody to accept a plan and says so; the commands that run no agent
// name the ones that take it. A session the editor loads comes back in the mode of its last turn.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeProviderServer, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Editor, newSession, startEditor } from "./acp-editor.js";
import { call, fakeOpenAI, runCli } from "./cli-harness.js";

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
const editors: Editor[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-plan-doors-"));
  repo = join(dir, "repo");
  execFileSync("git", ["init", "-q", repo]);
});
afterEach(async () => {
  for (const editor of editors.splice(0)) await editor.close();
  await server?.close();
  server = undefined;
  await cleanup();
});

function editor(fake: FakeProviderServer, ...more: string[]): Editor {
  const started = startEditor(dir, fake, ...more);
  editors.push(started);
  return started;
}

describe("--plan refused where no agent could plan", () => {
  it("says why a durable run cannot plan, and which commands take --plan, in one line each (exit 2)", async () => {
    const env = { XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") };
    for (const durable of ["--durable", "--enqueue"]) {
      const refused = await runCli(["run", "fix it", "--plan", durable], { cwd: repo, env });
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim().split("\n")).toEqual([
        "bridle: --plan does not go with a durable run: it has nobody to accept the plan (a worker waits for approvals, not for a plan's acceptance); plan with bridle run --plan or in bridle, then run the accepted plan durably",
      ]);
    }
    for (const command of [["sessions", "list"], ["worker"], ["tools", "list"], ["policy", "check", "ls"]]) {
      const refused = await runCli([...command, "--plan"], { cwd: repo, env });
      expect(refused.code, command.join(" ")).toBe(2);
      expect(refused.stderr.trim().split("\n")).toEqual([
        "bridle: --plan is an option of bridle run, the interactive session and bridle acp",
      ]);
    }
  });
});

describe("bridle acp --plan", () => {
  it("starts each new session in plan mode: writes refused until the editor accepts the plan", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("w1", "write_file", { path: "new.txt", content: "early\n" })] },
      { toolCalls: [call("p1", "exit_plan_mode", { plan: "1. Write new.txt." })] },
      { toolCalls: [call("w2", "write_file", { path: "new.txt", content: "planned\n" })] },
      { text: "done" },
    ]);
    const plans = editor(server, "--plan");
    plans.answer = (request) => request.options[0]?.optionId ?? "cancelled";
    const created = await newSession(plans, repo);
    expect(created.modes?.currentModeId).toBe("plan");
    const answer = await plans.connection.agent.request("session/prompt", {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "write new.txt" }],
    });
    expect(answer.stopReason, plans.stderr()).toBe("end_turn");
    const sent = JSON.stringify(server.requests.map((request) => request.body));
    expect(sent).toContain("write_file is not available in plan mode");
    expect(plans.permissions.map((p) => p.toolCall.title)).toEqual([
      "Plan: Accept this plan and switch to workspace mode?",
    ]);
    expect(readFileSync(join(repo, "new.txt"), "utf8")).toBe("planned\n");
    expect(plans.updates).toContainEqual({
      sessionUpdate: "current_mode_update",
      currentModeId: "workspace",
    });
  });
});

describe("session/load", () => {
  it("comes back in the mode of the session's last turn; bridle acp --permission-mode given wins", async () => {
    server = await fakeOpenAI([
      { text: "Read only now." },
      { toolCalls: [call("t1", "bash", { command: "touch made.txt" })] },
      { text: "Could not." },
    ]);
    const first = editor(server);
    const created = await newSession(first, repo);
    const sessionId = created.sessionId;
    await first.connection.agent.request("session/set_mode", { sessionId, modeId: "read-only" });
    const turn = await first.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "look" }],
    });
    expect(turn.stopReason, first.stderr()).toBe("end_turn");
    await first.close();
    editors.splice(editors.indexOf(first), 1);

    const second = editor(server);
    await second.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const loaded = await second.connection.agent.request("session/load", {
      sessionId,
      cwd: repo,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("read-only");
    // Said on stderr, a pipe of its own: it may reach us after the answer on stdout.
    await vi.waitFor(() => expect(second.stderr()).toContain("bridle: resumed in read-only mode"), {
      timeout: 30_000,
    });
    const again = await second.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "make the file" }],
    });
    expect(again.stopReason, second.stderr()).toBe("end_turn");
    expect(existsSync(join(repo, "made.txt"))).toBe(false);
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("the session is read-only");
    await second.close();
    editors.splice(editors.indexOf(second), 1);

    const chosen = editor(server, "--permission-mode", "ask");
    await chosen.connection.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const asked = await chosen.connection.agent.request("session/load", {
      sessionId,
      cwd: repo,
      mcpServers: [],
    });
    expect(asked.modes?.currentModeId).toBe("ask");
    expect(chosen.stderr()).not.toContain("resumed in");
  });
});
