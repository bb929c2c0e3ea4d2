import { type AnyHook, askApprover, defineHook, defineTool, Harness } from "@bridle/core";
import { ScriptedModel } from "@bridle/testing";
import { test } from "vitest";
import { z } from "zod";
import { noopTool } from "../test/helpers.js";

// What run control costs on the hot path. The same 100-turn session of no-op tool calls runs with no
// hooks and with two tool hooks per call (one filtered in, one rewriting output): the ratio is the hook
// overhead. Then the price of an approval pause: sealing the envelope, and checking it on resume.
const TURNS = 100;

function sessionModel(turns: number): ScriptedModel {
  return new ScriptedModel(
    ({ index }) => (index < turns ? { toolCalls: [{ name: "noop", arguments: "{}" }] } : { text: "done" }),
    { record: false },
  );
}

const hooks: AnyHook[] = [
  defineHook({ event: "before_tool_call", tools: ["noop"], handler: () => {} }),
  defineHook({ event: "after_tool_call", handler: (ctx) => ctx.rewrite("ok (seen)") }),
];

async function session(withHooks: boolean): Promise<void> {
  const harness = new Harness({
    model: sessionModel(TURNS),
    tools: [noopTool],
    limits: { maxModelRequests: TURNS + 1, maxToolCalls: TURNS, warnAt: [] },
    ...(withHooks ? { hooks } : {}),
  });
  const result = await harness.run({ prompt: "go" });
  if (result.stopReason !== "completed") throw new Error(`run ended with ${result.stopReason}`);
}

test(`hook overhead, ${TURNS} tool turns`, async ({ bench }) => {
  await bench("no hooks", () => session(false)).run({ time: 2000, iterations: 5 });
  await bench("two tool hooks per call", () => session(true)).run({ time: 2000, iterations: 5 });
});

const guarded = defineTool({
  name: "guarded",
  description: "needs approval",
  inputSchema: z.object({ n: z.number() }),
  annotations: { requires_approval: true },
  execute: async () => ({ content: "ran" }),
});

/** A harness whose session runs `history` turns, then pauses at a call that needs approval. */
function pausingHarness(history: number): Harness {
  const model = new ScriptedModel(
    ({ messages }) => {
      const turns = messages.filter((m) => m.role === "assistant").length;
      if (messages.at(-1)?.role === "tool" && turns > history) return { text: "done" };
      return turns < history
        ? { toolCalls: [{ name: "noop", arguments: "{}" }], text: "x".repeat(200) }
        : { toolCalls: [{ name: "guarded", id: "g", arguments: '{"n":1}' }] };
    },
    { record: false },
  );
  return new Harness({
    model,
    tools: [noopTool, guarded],
    approver: askApprover,
    limits: { maxModelRequests: history + 3, maxToolCalls: history + 2, warnAt: [] },
  });
}

async function pause(history: number): Promise<string> {
  const paused = await pausingHarness(history).run({ prompt: "go" });
  if (paused.stopReason !== "approval_required") throw new Error(`run ended with ${paused.stopReason}`);
  return JSON.stringify(paused.resumeEnvelope);
}

test("approval pause and resume, by transcript length", async ({ bench }) => {
  for (const history of [10, 200]) {
    const envelope = await pause(history);
    await bench(`pause after ${history} turns (run + seal)`, () => pause(history).then(() => {})).run({
      time: 1500,
      iterations: 5,
    });
    // A fresh harness each time: one harness refuses to resume the same pause twice.
    await bench(`resume after ${history} turns (check + one turn)`, async () => {
      const result = await pausingHarness(history).resume(envelope, { g: { approved: true } });
      if (result.stopReason !== "completed") throw new Error(`resume ended with ${result.stopReason}`);
    }).run({ time: 1500, iterations: 5 });
  }
});
