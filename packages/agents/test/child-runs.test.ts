import { type AnyTool, type ChildRuns, defineTool, Harness, type Model } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agents } from "../src/index.js";
import { childEvents, echo, lastToolJson } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace("bridle-agents-child-runs-"));
});
afterEach(() => cleanup());

/** What a runner that records steps does with a child: here it only notes what went through it. */
function recordingChildRuns(log: string[]): ChildRuns {
  return {
    runId: "child-run-of-spawn",
    model: (model: Model): Model => {
      const wrapped: Model = Object.create(model);
      Object.defineProperty(wrapped, "stream", {
        value: (request: Parameters<Model["stream"]>[0]) => {
          log.push("model");
          return model.stream(request);
        },
      });
      return wrapped;
    },
    tool: (tool: AnyTool): AnyTool => ({
      ...tool,
      execute: (args, env) => {
        log.push(`tool:${tool.name}`);
        return tool.execute(args, env);
      },
    }),
    approver: (approver) => ({
      decide: (request, signal) => {
        log.push(`approval:${request.toolCall.name}`);
        return approver.decide(request, signal);
      },
    }),
  };
}

/** A child tool that needs approval and outlasts the spawn's 1 s timeout. */
const slowGuarded: AnyTool = defineTool({
  name: "slow_guarded",
  description: "Takes a while; needs approval",
  inputSchema: z.object({}),
  annotations: { requires_approval: true },
  execute: async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    return { content: "done slowly" };
  },
});

describe("a subagent in a run that records its steps (ToolCallEnv.childRuns)", () => {
  it("is built from childRuns (model, tools, approver, run id), runs to its end whatever the timeout, and is never sent to the background", async () => {
    const log: string[] = [];
    const child = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
      { toolCalls: [{ name: "slow_guarded", arguments: {} }] },
      { text: "child finished" },
    ]);
    const parentModel = new ScriptedModel([
      {
        toolCalls: [
          { name: "agent_spawn", id: "bg", arguments: { agent_id: "worker", task: "t", timeout_seconds: 0 } },
        ],
      },
      {
        toolCalls: [
          { name: "agent_spawn", id: "fg", arguments: { agent_id: "worker", task: "t", timeout_seconds: 1 } },
        ],
      },
      { text: "parent finished" },
    ]);
    const parent = {
      model: parentModel,
      tools: [echo, slowGuarded],
      approver: { decide: async () => ({ approved: true }) },
    };
    const agents = new Agents({
      parent,
      agents: [{ name: "worker", description: "Works", model: child }],
    });
    // The spawn tool as a recording runner hands it over: the call's env carries childRuns.
    const tools = agents.tools.map(
      (tool): AnyTool =>
        tool.annotations?.starts_runs
          ? {
              ...tool,
              execute: (args, env) => tool.execute(args, { ...env, childRuns: recordingChildRuns(log) }),
            }
          : tool,
    );
    const harness = new Harness({ ...parent, tools: [...parent.tools, ...tools], workspace: dir });
    const stream = harness.stream({ prompt: "delegate" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");

    const background = result.messages.find((m) => m.role === "tool" && m.toolCallId === "bg");
    expect(background).toMatchObject({ isError: true });
    expect(JSON.stringify(background)).toMatch(/durable, so a subagent cannot run in the background/);

    // Waited past its 1 s timeout: a durable child's wait cannot depend on the clock.
    // Its task id comes from the child's run id, so a durable run's later task_output names the same task.
    expect(lastToolJson(result.messages)).toMatchObject({
      task_id: "task_childrunofspawn",
      status: "completed",
      result: "child finished",
    });
    expect(log).toEqual([
      "model",
      "tool:echo",
      "model",
      "approval:slow_guarded",
      "tool:slow_guarded",
      "model",
    ]);
    const carried = childEvents(events);
    expect(carried.length).toBeGreaterThan(0);
    for (const event of carried) expect(event.runId).toBe("child-run-of-spawn");
    await agents.close();
  });

  it("agent_spawn and agent_send say they start runs; the other agent tools do not", () => {
    const agents = new Agents({
      parent: { model: new ScriptedModel([]), tools: [echo] },
      agents: [{ name: "worker", description: "Works" }],
    });
    const starting = agents.tools.filter((tool) => tool.annotations?.starts_runs === true).map((t) => t.name);
    expect(starting.sort()).toEqual(["agent_send", "agent_spawn"]);
  });
});
