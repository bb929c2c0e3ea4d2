// Deferred tools: kept out of the request until the model finds them with the search tool.
import {
  type AnyTool,
  askApprover,
  BridleError,
  defineTool,
  Harness,
  type Message,
  projectTranscript,
  type RunEvent,
} from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectWellFormed, noopTool, resultText } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

function tool(name: string, description: string): AnyTool {
  return defineTool({
    name,
    description,
    inputSchema: z.object({ query: z.string() }),
    execute: async ({ query }) => ({ content: `${name} ran: ${query}` }),
  });
}

const sessionSearch = tool("session_search", "Searches past sessions of this workspace for text.");
const memoryRead = tool("memory_read", "Reads a note saved in the project's memory.");
const taskList = tool("task_list", "Lists the background tasks and their state.");
const deferredTools = [sessionSearch, memoryRead, taskList];

const requestNames = (events: readonly RunEvent[]) =>
  events.flatMap((event) => (event.type === "model_request" ? [event.toolNames] : []));

function resultOf(messages: readonly Message[], name: string): Message | undefined {
  return messages.find((message) => message.role === "tool" && message.toolName === name);
}

describe("deferred tools", () => {
  it("offers a deferred tool only from the request after the model found it, appended to the others", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "session_search", arguments: { query: "flaky test" } }] },
      { toolCalls: [{ name: "tool_search", arguments: { query: "search past sessions" } }] },
      { toolCalls: [{ name: "session_search", arguments: { query: "flaky test" } }] },
      { text: "done" },
    ]);
    const harness = new Harness({ model, workspace: dir, tools: [noopTool], deferredTools });
    const stream = harness.stream({ prompt: "what did we find last time?" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    expect(requestNames(events)).toEqual([
      ["noop", "tool_search"],
      ["noop", "tool_search"],
      ["noop", "tool_search", "session_search"],
      ["noop", "tool_search", "session_search"],
    ]);
    // The tools offered before are the same bytes, in the same order, in the request that adds one.
    const [, second, third] = model.requests;
    expect(JSON.stringify(third?.tools.slice(0, 2))).toBe(JSON.stringify(second?.tools));
    // The search tool's description names what can be found.
    expect(second?.tools[1]?.description).toContain("session_search, memory_read, task_list");

    const tools = result.messages.filter((message) => message.role === "tool");
    // A call before it was found gets a failure that says how to find it; the tool did not run.
    expect(tools[0]).toMatchObject({ isError: true, errorKind: "UnknownTool" });
    expect(resultText(tools[0])).toContain('call tool_search with query "session_search"');
    expect(resultText(tools[1])).toContain(
      "- session_search: Searches past sessions of this workspace for text.",
    );
    expect(tools[1]).toMatchObject({ isError: false, details: { loaded: ["session_search"] } });
    expect(resultText(tools[2])).toBe("session_search ran: flaky test");
    expectWellFormed(result.messages);
  });

  it("finds tools by exact names, several at once, and says what exists when nothing matches", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "tool_search", arguments: { query: "deploy kubernetes" } }] },
      { toolCalls: [{ name: "tool_search", arguments: { query: "task_list, memory_read" } }] },
      { text: "done" },
    ]);
    const harness = new Harness({ model, workspace: dir, tools: [noopTool], deferredTools });
    const stream = harness.stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    const searches = result.messages.filter((message) => message.role === "tool");
    expect(resultText(searches[0])).toBe(
      'No tool matches "deploy kubernetes". Tools you can find: session_search, memory_read, task_list.',
    );
    expect(searches[1]).toMatchObject({ details: { loaded: ["task_list", "memory_read"] } });
    expect(requestNames(events)).toEqual([
      ["noop", "tool_search"],
      ["noop", "tool_search"],
      ["noop", "tool_search", "task_list", "memory_read"],
    ]);
  });

  it("a resumed session offers the tools it had found, read back from its recorded events", async () => {
    const recorded: RunEvent[] = [];
    const sink = { write: (event: RunEvent) => void recorded.push(event) };
    const first = new Harness({
      model: new ScriptedModel([
        { toolCalls: [{ name: "tool_search", arguments: { query: "memory note" } }] },
        { text: "found it" },
      ]),
      workspace: dir,
      tools: [noopTool],
      deferredTools,
    });
    const done = await first.run({ prompt: "go", sink });
    expect(done.stopReason).toBe("completed");
    expect(resultOf(done.messages, "tool_search")).toMatchObject({ details: { loaded: ["memory_read"] } });

    // Another harness (another process, say) continues from the transcript its store projects.
    const model = new ScriptedModel([
      { toolCalls: [{ name: "memory_read", arguments: { query: "style" } }] },
      { text: "done" },
    ]);
    const second = new Harness({ model, workspace: dir, tools: [noopTool], deferredTools });
    const resumed = await second.run({ prompt: "read it", history: projectTranscript(recorded) });
    expect(resumed.stopReason).toBe("completed");
    expect(model.requests[0]?.tools.map((schema) => schema.name)).toEqual([
      "noop",
      "tool_search",
      "memory_read",
    ]);
    expect(resultText(resumed.messages.at(-2))).toBe("memory_read ran: style");
  });

  it("a found tool that asks for approval pauses, and another harness resumes the call", async () => {
    const guarded = defineTool({
      name: "task_cancel",
      description: "Cancels a background task.",
      inputSchema: z.object({ id: z.string() }),
      annotations: { requires_approval: true },
      execute: async ({ id }) => ({ content: `cancelled ${id}` }),
    });
    const script = () =>
      new ScriptedModel([
        { toolCalls: [{ name: "tool_search", arguments: { query: "task_cancel" } }] },
        { toolCalls: [{ id: "c9", name: "task_cancel", arguments: { id: "t1" } }] },
        { text: "done" },
      ]);
    const options = {
      workspace: dir,
      tools: [noopTool],
      deferredTools: [guarded],
      approvalSecret: "k",
      approver: askApprover,
    };
    const paused = await new Harness({ model: script(), ...options }).run({ prompt: "stop t1" });
    expect(paused.stopReason).toBe("approval_required");
    expect(paused.pendingApprovals?.map((pending) => pending.toolCall.name)).toEqual(["task_cancel"]);
    // A fresh harness, as after a restart: the found tool is read back from the envelope's transcript.
    const model = new ScriptedModel([{ text: "done" }]);
    const resumed = await new Harness({ model, ...options }).resume(paused.resumeEnvelope, {
      c9: { approved: true },
    });
    expect(resumed.stopReason).toBe("completed");
    expect(resultText(resumed.messages.at(-2))).toBe("cancelled t1");
    // The request after the resumed call still offers the tool found before the pause.
    expect(model.requests[0]?.tools.map((schema) => schema.name)).toEqual([
      "noop",
      "tool_search",
      "task_cancel",
    ]);
    // Bound to the deferred tools too: a harness without them refuses the envelope.
    expect(() =>
      new Harness({ model, workspace: dir, tools: [noopTool], approvalSecret: "k" }).resumeApprovals(
        paused.resumeEnvelope,
        { c9: { approved: true } },
      ),
    ).toThrow(BridleError);
  });

  it("takes the search tool's name from the profile, and refuses names that clash", () => {
    const model = new ScriptedModel([]);
    const harness = new Harness({
      model,
      workspace: dir,
      tools: [noopTool],
      deferredTools,
      toolSearchName: "ToolSearch",
    });
    expect(harness.toolSchemas.map((schema) => schema.name)).toEqual(["noop", "ToolSearch"]);
    expect(() => new Harness({ model, workspace: dir, tools: [sessionSearch], deferredTools })).toThrow(
      expect.objectContaining({ code: "duplicate_tool" }) as BridleError,
    );
    expect(
      () => new Harness({ model, workspace: dir, deferredTools: [tool("tool_search", "clash")] }),
    ).toThrow(expect.objectContaining({ code: "duplicate_tool" }) as BridleError);
    // Without deferred tools there is no search tool.
    const plain = new Harness({ model, workspace: dir, tools: [noopTool], deferredTools: [] });
    expect(plain.toolSchemas.map((schema) => schema.name)).toEqual(["noop"]);
  });
});
