// The system prompt and tool list a request sent ride on model_request only when they changed for the
// session: once for its first request, again when a tool joins, never for an unchanged run after it.
import { type AnyTool, defineTool, Harness, type RunEvent, type ToolSource } from "@bridle/core";
import { collectEvents, ScriptedModel, tempWorkspace } from "@bridle/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { noopTool } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempWorkspace());
});
afterEach(() => cleanup());

const late: AnyTool = defineTool({
  name: "late",
  description: "joins after the first request",
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => ({ content: text }),
});

class SettableSource implements ToolSource {
  offered: AnyTool[] = [];
  tools(): readonly AnyTool[] {
    return this.offered;
  }
}

const setups = (events: readonly RunEvent[]) =>
  events.flatMap((event) =>
    event.type === "model_request"
      ? [event.setup ? { system: event.setup.system, tools: event.setup.tools.map((t) => t.name) } : null]
      : [],
  );

describe("the request setup on model_request", () => {
  it("is recorded at a session's first request and when the tools change, not again after", async () => {
    const source = new SettableSource();
    const model = new ScriptedModel([
      () => {
        source.offered = [late];
        return { toolCalls: [{ name: "noop", arguments: {} }] };
      },
      { text: "first done" },
      { text: "second done" },
    ]);
    const harness = new Harness({
      model,
      workspace: dir,
      system: "You are terse.",
      tools: [noopTool],
      toolSources: [source],
    });
    const first = await collectEvents(harness.stream({ prompt: "one", sessionId: "s1" }));
    expect(setups(first)).toEqual([
      { system: "You are terse.", tools: ["noop"] },
      { system: "You are terse.", tools: ["noop", "late"] },
    ]);
    const request = first.find((event) => event.type === "model_request");
    expect(request?.type === "model_request" && request.setup?.tools[0]).toMatchObject({
      name: "noop",
      description: noopTool.description,
      inputSchema: { type: "object" },
    });
    // The same session's next run sent the same: nothing is recorded again.
    const second = await collectEvents(harness.stream({ prompt: "two", sessionId: "s1" }));
    expect(setups(second)).toEqual([null]);
  });

  it("is recorded for each new session, and for each run without one", async () => {
    const model = new ScriptedModel([{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }]);
    const harness = new Harness({ model, workspace: dir, tools: [noopTool] });
    const one = await collectEvents(harness.stream({ prompt: "x", sessionId: "s1" }));
    const other = await collectEvents(harness.stream({ prompt: "x", sessionId: "s2" }));
    const bare = await collectEvents(harness.stream({ prompt: "x" }));
    const bareAgain = await collectEvents(harness.stream({ prompt: "x" }));
    for (const events of [one, other, bare, bareAgain]) {
      expect(setups(events)).toEqual([{ system: "", tools: ["noop"] }]);
    }
  });
});
