import { Harness, type RunEvent } from "@bridle/core";
import { ScriptedModel, tempWorkspace } from "@bridle/testing";
import { expect, it } from "vitest";
import { Agents, withSubagentEvents } from "../src/index.js";
import { echo } from "./helpers.js";

it("withSubagentEvents hands a sink the child's events after the parent events that carry them", async () => {
  const { dir, cleanup } = await tempWorkspace("bridle-agents-sink-");
  try {
    const child = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
      { text: "done" },
    ]);
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "agent_spawn", id: "s1", arguments: { agent_id: "helper", task: "say hi" } }] },
      { text: "ok" },
    ]);
    const parent = { model: parentModel, tools: [echo] };
    const agents = new Agents({
      parent,
      agents: [{ name: "helper", description: "helps", model: child }],
      childEvents: "all",
    });
    const written: RunEvent[] = [];
    const sink = withSubagentEvents({ write: (event) => void written.push(event) });
    const result = await new Harness({ ...parent, tools: [echo, ...agents.tools], workspace: dir }).run({
      prompt: "go",
      sink,
    });
    expect(result.stopReason).toBe("completed");
    const childRun = written.filter((e) => e.runId !== result.runId);
    expect(childRun.map((e) => e.type)).toEqual([
      "run_started",
      "model_request",
      "model_response",
      "tool_call_requested",
      "tool_call_completed",
      "model_request",
      "text_delta",
      "model_response",
      "run_completed",
    ]);
    // Each child event follows the parent's tool_progress that carried it, within the spawning call.
    const firstChild = written.indexOf(childRun[0] as RunEvent);
    expect(written[firstChild - 1]?.type).toBe("tool_progress");
    const completed = written.findIndex((e) => e.type === "tool_call_completed" && e.runId === result.runId);
    expect(written.indexOf(childRun.at(-1) as RunEvent)).toBeLessThan(completed);
    // Sequence numbers stay per run: the child's start at 0.
    expect(childRun[0]?.seq).toBe(0);
  } finally {
    await cleanup();
  }
});

it("withSubagentEvents unwraps a grandchild's events too, each naming the call of its own parent", async () => {
  const { dir, cleanup } = await tempWorkspace("bridle-agents-sink-deep-");
  try {
    const grandchild = new ScriptedModel([{ text: "deep done" }]);
    const child = new ScriptedModel([
      { toolCalls: [{ name: "agent_spawn", id: "s2", arguments: { agent_id: "deep", task: "go deeper" } }] },
      { text: "child done" },
    ]);
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "agent_spawn", id: "s1", arguments: { agent_id: "worker", task: "start" } }] },
      { text: "ok" },
    ]);
    const parent = { model: parentModel, tools: [echo] };
    const agents = new Agents({
      parent,
      maxDepth: 2,
      agents: [
        { name: "worker", description: "works", model: child },
        { name: "deep", description: "works deeper", model: grandchild },
      ],
    });
    const written: RunEvent[] = [];
    const sink = withSubagentEvents({ write: (event) => void written.push(event) });
    const result = await new Harness({ ...parent, tools: [echo, ...agents.tools], workspace: dir }).run({
      prompt: "go",
      sink,
    });
    expect(result.stopReason).toBe("completed");
    const started = written.filter((e) => e.type === "run_started");
    expect(started).toHaveLength(3);
    const [, childStart, deepStart] = started;
    expect(childStart).toMatchObject({ parentRunId: result.runId, parentToolCallId: "s1" });
    expect(deepStart).toMatchObject({ parentRunId: childStart?.runId, parentToolCallId: "s2" });
    const deepEnd = written.find((e) => e.type === "run_completed" && e.runId === deepStart?.runId);
    expect(deepEnd).toMatchObject({ finalText: "deep done" });
    await agents.close();
  } finally {
    await cleanup();
  }
});
