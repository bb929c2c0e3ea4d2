import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  type ClientConnection,
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { type FakeProviderServer, openaiResponsesFormat, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it, onTestFailed } from "vitest";
import { CLI, call, fakeOpenAI, NODE_FLAGS, queueTurns, toolOutputsSent, userTexts } from "./cli-harness.js";

// `bridle acp` as an editor drives it: the ACP SDK's client side over the built CLI's stdin/stdout, the
// model a loopback fake OpenAI Responses server, the files and the session store real.

const TOY = fileURLToPath(
  new URL("../../../packages/tools-mcp/test/fixtures/toy-server.mjs", import.meta.url),
);

let dir: string;
let repo: string;
let cleanup: () => Promise<void>;
let server: FakeProviderServer | undefined;
const agents: Editor[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-acp-"));
  repo = join(dir, "repo");
  execFileSync("git", ["init", "-q", repo]);
  await writeFile(join(repo, "notes.txt"), "old\n");
});
afterEach(async () => {
  for (const editor of agents.splice(0)) await editor.close();
  await server?.close();
  server = undefined;
  await cleanup();
});

/** One editor connected to one `bridle acp` process: what it was sent, and how it answers permissions. */
interface Editor {
  readonly connection: ClientConnection;
  readonly updates: SessionUpdate[];
  readonly permissions: RequestPermissionRequest[];
  /** Answers each permission request with an option id, or "cancelled"; the default allows once. */
  answer: (request: RequestPermissionRequest, signal: AbortSignal) => string | Promise<string>;
  readonly stderr: () => string;
  close(): Promise<void>;
}

function startAgent(fake: FakeProviderServer, ...more: string[]): Editor {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [
      ...NODE_FLAGS,
      CLI,
      "acp",
      "--provider",
      "openai",
      "--model",
      "m",
      "--profile",
      "generic",
      "--edit-format",
      "replace",
      "--sandbox",
      "off",
      "--base-url",
      openaiResponsesFormat.baseUrl(fake.url),
      ...more,
    ],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        XDG_DATA_HOME: join(dir, "data"),
        XDG_CONFIG_HOME: join(dir, "config"),
        OPENAI_API_KEY: "k",
      },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const updates: SessionUpdate[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const editor: Editor = {
    connection: undefined as unknown as ClientConnection,
    updates,
    permissions,
    answer: () => "allow",
    stderr: () => stderr,
    async close() {
      editor.connection.close();
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    },
  };
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params.update);
    })
    .onRequest("session/request_permission", async ({ params, signal }) => {
      permissions.push(params);
      const optionId = await editor.answer(params, signal);
      return optionId === "cancelled"
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId } };
    });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  Object.assign(editor, { connection: app.connect(stream) });
  agents.push(editor);
  // A process that died says why only on its stderr: shown with the failure.
  onTestFailed(() => {
    process.stderr.write(`bridle acp stderr (exit ${child.exitCode}):\n${stderr}\n`);
  });
  return editor;
}

/** The text of every chunk update of one kind (agent_message_chunk…), joined. */
function texts(
  updates: readonly SessionUpdate[],
  kind: "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk",
): string {
  let text = "";
  for (const u of updates) {
    if (
      (u.sessionUpdate === "user_message_chunk" ||
        u.sessionUpdate === "agent_message_chunk" ||
        u.sessionUpdate === "agent_thought_chunk") &&
      u.sessionUpdate === kind &&
      u.content.type === "text"
    ) {
      text += u.content.text;
    }
  }
  return text;
}

describe("bridle acp, driven by the ACP SDK's client over stdio", () => {
  it("initializes, works a prompt (read, plan, edit as a diff, a permission answered), is cancelled mid-turn, and a new process loads the session with its history", async () => {
    server = await fakeOpenAI([
      {
        reasoning: "look first",
        // The plan tool waits behind tool_search until the model asks for it.
        toolCalls: [
          call("read", "read_file", { path: "notes.txt" }),
          call("find", "tool_search", { query: "update_plan" }),
        ],
      },
      {
        toolCalls: [
          call("plan", "update_plan", {
            plan: [
              { step: "Read the notes", status: "completed" },
              { step: "Fix the word", status: "in_progress" },
            ],
          }),
        ],
      },
      {
        toolCalls: [
          call("edit", "edit_file", { path: "notes.txt", old_string: "old", new_string: "new" }),
          call("touch", "bash", { command: "touch made.txt" }),
        ],
      },
      { text: "Fixed the notes." },
    ]);
    const first = startAgent(server, "--permission-mode", "ask");
    // The bash call is refused in the editor; the edit is allowed once.
    first.answer = (request) => (request.toolCall.kind === "execute" ? "reject" : "allow");
    const agent = first.connection.agent;

    const init = await agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    expect(init.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(init.agentCapabilities?.promptCapabilities?.embeddedContext).toBe(true);
    expect(init.agentCapabilities?.mcpCapabilities?.http).toBe(true);

    const created = await agent.request("session/new", { cwd: repo, mcpServers: [] });
    expect(created.modes?.currentModeId).toBe("ask");
    expect(created.modes?.availableModes.map((m) => m.id)).toEqual([
      "plan",
      "read-only",
      "workspace",
      "ask",
      "full-access",
    ]);

    const answer = await agent.request("session/prompt", {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "fix the notes" }],
    });
    expect(answer.stopReason, first.stderr()).toBe("end_turn");

    // The file changed on disk; the editor saw the change as a diff of the whole file.
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("new\n");
    const editEnd = first.updates.find(
      (u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "edit" && u.status === "completed",
    );
    expect(editEnd && "content" in editEnd ? editEnd.content : undefined).toContainEqual({
      type: "diff",
      path: join(repo, "notes.txt"),
      oldText: "old\n",
      newText: "new\n",
    });

    // Tool calls arrive with kind, title, locations and status.
    const started = first.updates.filter((u) => u.sessionUpdate === "tool_call");
    expect(started.map((u) => [u.toolCallId, u.kind, u.status])).toEqual([
      ["read", "read", "pending"],
      ["find", "other", "pending"],
      ["plan", "think", "pending"],
      ["edit", "edit", "pending"],
      ["touch", "execute", "pending"],
    ]);
    expect(started[0]).toMatchObject({
      title: `Read ${join(repo, "notes.txt")}`,
      locations: [{ path: join(repo, "notes.txt") }],
    });
    expect(started[4]).toMatchObject({ title: "touch made.txt" });

    // Two permissions asked (the edit, the command); the command's "always" names that command's rule.
    expect(first.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["edit", "touch"]);
    const touchOptions = first.permissions[1]?.options ?? [];
    expect(touchOptions.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(touchOptions[1]?.name).toMatch(/touch/);
    // The refusal reached the model, and the command never ran.
    expect(existsSync(join(repo, "made.txt"))).toBe(false);
    const touchEnd = first.updates.find(
      (u) =>
        u.sessionUpdate === "tool_call_update" &&
        u.toolCallId === "touch" &&
        u.status !== undefined &&
        u.status !== "in_progress",
    );
    expect(touchEnd).toMatchObject({ status: "failed" });
    expect(toolOutputsSent(server).join("\n")).toMatch(/refused/);

    // Thoughts, the answer, the plan and usage arrived as updates.
    expect(texts(first.updates, "agent_thought_chunk")).toBe("look first");
    expect(texts(first.updates, "agent_message_chunk")).toBe("Fixed the notes.");
    expect(first.updates.find((u) => u.sessionUpdate === "plan")).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "Read the notes", priority: "medium", status: "completed" },
        { content: "Fix the word", priority: "medium", status: "in_progress" },
      ],
    });
    // One per model request: the four of this turn.
    const usage = first.updates.filter((u) => u.sessionUpdate === "usage_update");
    expect(usage).toHaveLength(4);
    expect(usage[0]).toMatchObject({ size: expect.any(Number) });

    // A turn cancelled while the model is still writing: the reply stops, the stop reason says so.
    server.enqueue({
      kind: "stream",
      events: openaiResponsesFormat.events({
        text: "Let me think about this for a long while",
        chunkSize: 4,
      }),
      hangAfter: 7,
    });
    const before = first.updates.length;
    const cancelled = agent.request("session/prompt", {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "and now something slow" }],
    });
    while (!first.updates.slice(before).some((u) => u.sessionUpdate === "agent_message_chunk")) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await agent.notify("session/cancel", { sessionId: created.sessionId });
    expect((await cancelled).stopReason).toBe("cancelled");
    expect(server.requests.at(-1)?.aborted).toBe(true);
    await first.close();

    // A new process loads the session: its history is replayed as updates, and the next turn continues it.
    const second = startAgent(server);
    const again = second.connection.agent;
    await again.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    await again.request("session/load", { sessionId: created.sessionId, cwd: repo, mcpServers: [] });
    expect(texts(second.updates, "user_message_chunk")).toContain("fix the notes");
    expect(texts(second.updates, "agent_message_chunk")).toContain("Fixed the notes.");
    const replayed = second.updates.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId);
    expect(replayed).toEqual(["read", "find", "plan", "edit", "touch"]);
    expect(
      second.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "edit"),
    ).toMatchObject({ status: "completed" });
    expect(second.updates.some((u) => u.sessionUpdate === "plan")).toBe(true);

    queueTurns(server, [{ text: "Still here." }]);
    const next = await again.request("session/prompt", {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "what did you change?" }],
    });
    expect(next.stopReason, second.stderr()).toBe("end_turn");
    const sent = userTexts(server.requests.at(-1)?.body);
    expect(sent.some((t) => t.includes("fix the notes"))).toBe(true);
    expect(sent.some((t) => t.includes("what did you change?"))).toBe(true);
  });

  it("replays a loaded session's edits as diffs of the lines they changed", async () => {
    await writeFile(join(repo, "notes.txt"), "one\nold\nthree\n");
    server = await fakeOpenAI([
      { toolCalls: [call("read", "read_file", { path: "notes.txt" })] },
      { toolCalls: [call("edit", "edit_file", { path: "notes.txt", old_string: "old", new_string: "new" })] },
      { text: "Done." },
    ]);
    const first = startAgent(server, "--permission-mode", "full-access");
    await first.connection.agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const created = await first.connection.agent.request("session/new", { cwd: repo, mcpServers: [] });
    const answer = await first.connection.agent.request("session/prompt", {
      sessionId: created.sessionId,
      prompt: [{ type: "text", text: "fix the notes" }],
    });
    expect(answer.stopReason, first.stderr()).toBe("end_turn");
    expect(readFileSync(join(repo, "notes.txt"), "utf8")).toBe("one\nnew\nthree\n");
    await first.close();

    const second = startAgent(server);
    await second.connection.agent.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    await second.connection.agent.request("session/load", {
      sessionId: created.sessionId,
      cwd: repo,
      mcpServers: [],
    });
    const replayed = (id: string) => {
      const end = second.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id);
      return end?.sessionUpdate === "tool_call_update"
        ? (end.content ?? []).filter((content) => content.type === "diff")
        : undefined;
    };
    // What the edit's result stored: its changed lines, not the whole file (the live turn sends that).
    expect(replayed("edit")).toEqual([
      { type: "diff", path: join(repo, "notes.txt"), oldText: "old", newText: "new" },
    ]);
    expect(replayed("read")).toEqual([]);
  });

  it("takes embedded files and images, switches the permission mode for the next turn, and says when a session to load does not exist", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("w", "write_file", { path: "new.txt", content: "hi\n" })] },
      { text: "could not write" },
    ]);
    const editor = startAgent(server);
    const agent = editor.connection.agent;
    await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await agent.request("session/new", { cwd: repo, mcpServers: [] });
    await agent.request("session/set_mode", { sessionId, modeId: "read-only" });
    await expect(agent.request("session/set_mode", { sessionId, modeId: "anything" })).rejects.toThrow(
      /no mode/,
    );
    // The prompt carries what initialize offers: text, an embedded file (the editor's unsaved copy), an image.
    const answer = await agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "write it" },
        {
          type: "resource",
          resource: { uri: `file://${repo}/notes.txt`, text: "unsaved words", mimeType: "text/plain" },
        },
        { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      ],
    });
    expect(answer.stopReason, editor.stderr()).toBe("end_turn");
    const first = JSON.stringify(server.requests[0]?.body);
    expect(first).toContain("unsaved words");
    expect(first).toContain("data:image/png;base64,iVBORw0KGgo=");
    // Read-only: the write never happened, and nobody was asked.
    expect(existsSync(join(repo, "new.txt"))).toBe(false);
    expect(editor.permissions).toHaveLength(0);
    // The agent of the read-only mode offers no write tools at all.
    const offered = ((server.requests[0]?.body ?? {}) as { tools?: { name?: string }[] }).tools?.map(
      (t) => t.name,
    );
    expect(offered).toContain("read_file");
    expect(offered).not.toContain("write_file");
    expect(
      editor.updates.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "w"),
    ).toMatchObject({ status: "failed" });

    await expect(
      agent.request("session/load", { sessionId: "no-such-session", cwd: repo, mcpServers: [] }),
    ).rejects.toThrow(/no-such-session/);
  });

  it("gives the model the editor's MCP servers beside its own tools", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("echo", "mcp_toy_echo_text", { text: "ping", times: 2 })] },
      { text: "echoed" },
    ]);
    const editor = startAgent(server, "--mcp-startup", "wait");
    const agent = editor.connection.agent;
    await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await agent.request("session/new", {
      cwd: repo,
      mcpServers: [{ name: "toy", command: process.execPath, args: [TOY], env: [] }],
    });
    const answer = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "echo" }],
    });
    expect(answer.stopReason, editor.stderr()).toBe("end_turn");
    const body = (server.requests[0]?.body ?? {}) as { tools?: { name?: string }[] };
    const tools = (body.tools ?? []).map((t) => t.name);
    expect(tools).toContain("mcp_toy_echo_text");
    expect(tools).toContain("read_file");
    expect(toolOutputsSent(server).join("\n")).toContain("pingping");
  });

  it('remembers an "always" answer for that command for the rest of the session', async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("one", "bash", { command: "touch a.txt" })] },
      { text: "made a" },
      { toolCalls: [call("two", "bash", { command: "touch b.txt" })] },
      { text: "made b" },
    ]);
    const editor = startAgent(server, "--permission-mode", "ask");
    editor.answer = () => "always";
    const agent = editor.connection.agent;
    await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await agent.request("session/new", { cwd: repo, mcpServers: [] });
    for (const text of ["make a", "make b"]) {
      const answer = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      expect(answer.stopReason, editor.stderr()).toBe("end_turn");
    }
    expect(existsSync(join(repo, "a.txt"))).toBe(true);
    expect(existsSync(join(repo, "b.txt"))).toBe(true);
    // Asked once: the second touch fell under the rule the first answer approved.
    expect(editor.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["one"]);
  });

  it("cancels a turn that waits on a permission the editor has not answered", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("w", "write_file", { path: "late.txt", content: "x\n" })] },
    ]);
    const editor = startAgent(server, "--permission-mode", "ask");
    let asked: () => void = () => {};
    const askedOnce = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let editorTold = false;
    editor.answer = (_request, signal) => {
      asked();
      // The person never answers; the editor closes the question when the agent withdraws it.
      return new Promise<string>((resolve) =>
        signal.addEventListener("abort", () => {
          editorTold = true;
          resolve("cancelled");
        }),
      );
    };
    const agent = editor.connection.agent;
    await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId } = await agent.request("session/new", { cwd: repo, mcpServers: [] });
    const turn = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write" }] });
    await askedOnce;
    await agent.notify("session/cancel", { sessionId });
    expect((await turn).stopReason, editor.stderr()).toBe("cancelled");
    expect(existsSync(join(repo, "late.txt"))).toBe(false);
    expect(server.requests).toHaveLength(1);
    await expect.poll(() => editorTold).toBe(true);
  });
});

describe("plan mode over ACP", () => {
  it("plans in the plan mode, asks the editor to accept the plan, and says the switch to the working mode", async () => {
    server = await fakeOpenAI([
      { toolCalls: [call("w1", "write_file", { path: "new.txt", content: "early\n" })] },
      { toolCalls: [call("p1", "exit_plan_mode", { plan: "1. Write new.txt." })] },
      { toolCalls: [call("w2", "write_file", { path: "new.txt", content: "planned\n" })] },
      { text: "done" },
    ]);
    const editor = startAgent(server);
    editor.answer = (request) => request.options[0]?.optionId ?? "cancelled";
    const agent = editor.connection.agent;
    await agent.request("initialize", { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const created = await agent.request("session/new", { cwd: repo, mcpServers: [] });
    expect(created.modes?.availableModes.map((mode) => mode.id)).toContain("plan");
    const { sessionId } = created;
    await agent.request("session/set_mode", { sessionId, modeId: "plan" });
    const answer = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write new.txt" }],
    });
    expect(answer.stopReason, editor.stderr()).toBe("end_turn");
    // The write tried while planning was refused; the plan was put to the editor, accepted, and then written.
    const sent = JSON.stringify(server.requests.map((request) => request.body));
    expect(sent).toContain("write_file is not available in plan mode");
    expect(editor.permissions.map((p) => p.toolCall.title)).toEqual([
      "Plan: Accept this plan and switch to workspace mode?",
    ]);
    expect(readFileSync(join(repo, "new.txt"), "utf8")).toBe("planned\n");
    expect(editor.updates).toContainEqual({
      sessionUpdate: "current_mode_update",
      currentModeId: "workspace",
    });
  });
});
