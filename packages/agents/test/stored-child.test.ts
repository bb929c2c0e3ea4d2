import { Harness, type RunEvent, sessionSink, sessionTranscript } from "@bridle/core";
import { JsonlSessionStore } from "@bridle/store-jsonl";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agents, subagentEventOf } from "../src/index.js";
import { echo } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-agents-stored-"));
});
afterEach(() => cleanup());

describe("a subagent's run in the parent's stored session (an ordinary run)", () => {
  it("is recorded under the spawning call, read back nested, and kept out of the parent's transcript", async () => {
    const child = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "from the child" } }] },
      { text: "child answer" },
    ]);
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "agent_spawn", id: "spawn1", arguments: { agent_id: "worker", task: "go" } }] },
      { text: "parent answer" },
    ]);
    const parent = { model: parentModel, tools: [echo] };
    const agents = new Agents({ parent, agents: [{ name: "worker", description: "Works", model: child }] });
    const store = await JsonlSessionStore.open({ dir, durability: "append" });
    const session = await store.createSession({ title: "delegation" });
    const sink = sessionSink(store, session.id);
    const harness = new Harness({ ...parent, tools: [...parent.tools, ...agents.tools], workspace: dir });
    const result = await harness.run({ prompt: "delegate", sink, sessionId: session.id });
    await sink.flush();
    expect(result.stopReason).toBe("completed");

    const stored: RunEvent[] = [];
    for await (const entry of store.read(session.id)) stored.push(entry.event);
    const nested = stored.flatMap((event) => {
      const carried = subagentEventOf(event);
      return carried && event.type === "tool_progress" ? [{ call: event.toolCallId, carried }] : [];
    });
    expect(nested.every((entry) => entry.call === "spawn1")).toBe(true);
    const childEvents = nested.map((entry) => entry.carried);
    expect(childEvents.map((event) => event.type)).toEqual(
      expect.arrayContaining(["run_started", "tool_call_requested", "tool_call_completed", "run_completed"]),
    );
    expect(new Set(childEvents.map((event) => event.runId)).size).toBe(1);
    expect(childEvents.every((event) => event.parentToolCallId === "spawn1")).toBe(true);
    expect(childEvents.every((event) => event.parentRunId === result.runId)).toBe(true);

    // The parent's conversation, as resumed from the store, has its own turns only.
    const transcript = await sessionTranscript(store, session.id);
    expect(transcript.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(JSON.stringify(transcript)).not.toContain("from the child");
    await agents.close();
    await store.close();
  });
});
