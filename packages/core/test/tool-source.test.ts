// Tools that join a run after it started: a source read before each model request.
import { type AnyTool, defineTool, Harness, type RunEvent, type ToolSource } from "@bridle/core";
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

function echo(name: string): AnyTool {
  return defineTool({
    name,
    description: `echoes (${name})`,
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }) => ({ content: `${name}: ${text}` }),
  });
}

/** A source whose tools and facts the test sets between requests. */
class SettableSource implements ToolSource {
  offered: AnyTool[] = [];
  facts: { kind: string; data: unknown }[] = [];
  reads = 0;
  tools(): readonly AnyTool[] {
    this.reads++;
    return this.offered;
  }
  takeFacts() {
    return this.facts.splice(0);
  }
}

const requestNames = (events: readonly RunEvent[]) =>
  events.flatMap((event) => (event.type === "model_request" ? [event.toolNames] : []));

describe("tool sources", () => {
  it("offers a tool from the request after it joined, runs it, and records the source's facts once", async () => {
    const source = new SettableSource();
    const model = new ScriptedModel([
      (request) => {
        expect(request.tools.map((tool) => tool.name)).toEqual(["noop"]);
        // The source's server is up while the model thinks: its tool joins for the next request.
        source.offered = [echo("late_echo")];
        source.facts.push({ kind: "mcp.server_ready", data: { server: "late" } });
        return { toolCalls: [{ name: "noop", arguments: {} }] };
      },
      { toolCalls: [{ name: "late_echo", arguments: { text: "hi" } }] },
      { text: "done" },
    ]);
    const harness = new Harness({ model, workspace: dir, tools: [noopTool], toolSources: [source] });
    const stream = harness.stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    expect(requestNames(events)).toEqual([["noop"], ["noop", "late_echo"], ["noop", "late_echo"]]);
    expect(model.requests[1]?.tools.map((tool) => tool.name)).toEqual(["noop", "late_echo"]);
    const facts = events.filter((event) => event.type === "fact");
    expect(facts.map((event) => event.type === "fact" && [event.kind, event.data])).toEqual([
      ["mcp.server_ready", { server: "late" }],
    ]);
    // The fact is recorded before the request that first offers the tool.
    const factAt = events.findIndex((event) => event.type === "fact");
    const secondRequest = events.findIndex((event) => event.type === "model_request" && event.request === 2);
    expect(factAt).toBeLessThan(secondRequest);
    expect(resultText(result.messages.at(-2))).toBe("late_echo: hi");
    expectWellFormed(result.messages);
    expect(source.reads).toBe(3);
  });

  it("a tool that left is not offered again, while the call the model already made with it still runs", async () => {
    const source = new SettableSource();
    source.offered = [echo("flaky")];
    const model = new ScriptedModel([
      (request) => {
        expect(request.tools.map((tool) => tool.name)).toEqual(["flaky"]);
        source.offered = [];
        return { toolCalls: [{ name: "flaky", arguments: { text: "x" } }] };
      },
      (request) => {
        expect(request.tools).toEqual([]);
        return { text: "ok" };
      },
    ]);
    const harness = new Harness({ model, workspace: dir, toolSources: [source] });
    const result = await harness.run({ prompt: "go" });
    expect(result.stopReason).toBe("completed");
    // Looked up in the tools as of the request that produced the call: it still ran.
    expect(resultText(result.messages.at(-2))).toBe("flaky: x");
  });

  it("a source's tool never replaces the harness's own, nor an invalid name joins; each is said once", async () => {
    const source = new SettableSource();
    source.offered = [echo("noop"), echo("bad name!"), echo("fine")];
    const model = new ScriptedModel([
      { toolCalls: [{ name: "noop", arguments: {} }] },
      { toolCalls: [{ name: "noop", arguments: {} }] },
      { text: "done" },
    ]);
    const harness = new Harness({ model, workspace: dir, tools: [noopTool], toolSources: [source] });
    const stream = harness.stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(requestNames(events)).toEqual([
      ["noop", "fine"],
      ["noop", "fine"],
      ["noop", "fine"],
    ]);
    // The harness's noop answered, not the source's echo.
    expect(resultText(result.messages[2])).toBe("ok");
    const refused = events.flatMap((event) =>
      event.type === "fact" && event.kind === "tool_source.refused" ? [event.data] : [],
    );
    expect(refused).toEqual([
      { tool: "noop", reason: "the name is already taken by another tool" },
      { tool: "bad name!", reason: "the name must match ^[A-Za-z0-9_-]{1,64}$" },
    ]);
  });

  it("a source cannot take final_result, the name tool output mode reserves", async () => {
    const source = new SettableSource();
    source.offered = [echo("final_result")];
    const model = new ScriptedModel([{ toolCalls: [{ name: "final_result", arguments: { answer: 42 } }] }]);
    const harness = new Harness({
      model,
      workspace: dir,
      toolSources: [source],
      output: { schema: z.object({ answer: z.number() }), mode: "tool" },
    });
    const stream = harness.stream({ prompt: "go" });
    const events = await collectEvents(stream);
    const result = await stream.result;
    expect(result.stopReason).toBe("completed");
    expect(result.output).toEqual({ answer: 42 });
    expect(requestNames(events)).toEqual([["final_result"]]);
  });
});
