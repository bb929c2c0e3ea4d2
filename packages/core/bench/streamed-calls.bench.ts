import { type EventObserver, Harness, type Model, type ModelEvent, type RunEvent } from "@bridle/core";
import { test } from "vitest";
import { noopTool } from "../test/helpers.js";

// What streamed tool calls and observers cost per turn. 50 turns, each one call whose 20 KB of arguments
// arrive whole, or as 4-character deltas the way providers stream them (coalesced into a few dozen
// tool_call_delta events per call); then the streamed session with three observers watching it. The
// model-alone line is what producing the deltas costs by itself: the streamed lines minus it are the
// harness's price for showing calls as they are written (coalescing) and for fanning events out.
const TURNS = 50;
const ARGS = JSON.stringify({ pad: "x".repeat(20_000) });
const usage = {
  inputTokens: 1,
  outputTokens: 1,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

function model(streamed: boolean): Model {
  let turn = 0;
  return {
    provider: "bench",
    model: "bench",
    async *stream(): AsyncIterable<ModelEvent> {
      if (turn++ >= TURNS) {
        yield {
          type: "done",
          message: { role: "assistant", content: [{ type: "text", text: "done" }] },
          usage,
          stopReason: "end_turn",
        };
        return;
      }
      const id = `c${turn}`;
      if (streamed) {
        yield { type: "tool_call_delta", index: 0, id, name: "noop", argumentsDelta: "" };
        for (let i = 0; i < ARGS.length; i += 4) {
          yield { type: "tool_call_delta", index: 0, argumentsDelta: ARGS.slice(i, i + 4) };
        }
      }
      yield {
        type: "done",
        message: { role: "assistant", content: [{ type: "tool_call", id, name: "noop", arguments: ARGS }] },
        usage,
        stopReason: "tool_use",
      };
    },
  };
}

async function session(streamed: boolean, observers: readonly EventObserver[] = []): Promise<void> {
  const harness = new Harness({
    model: model(streamed),
    tools: [noopTool],
    limits: { maxModelRequests: TURNS + 1, maxToolCalls: TURNS, warnAt: [], toolRetryBudget: TURNS },
  });
  const result = await harness.run({ prompt: "go", observers });
  if (result.stopReason !== "completed") throw new Error(`run ended with ${result.stopReason}`);
}

const watchers = (): EventObserver[] => {
  const seen: RunEvent[] = [];
  return [
    { name: "tracer", write: (event) => void seen.push(event) },
    { name: "ui", write: async () => {} },
    { name: "recorder", write: (event) => void JSON.stringify(event) },
  ];
};

/** The same deltas read straight off the model, no harness: what producing them costs by itself. */
async function modelAlone(): Promise<void> {
  const streaming = model(true);
  const signal = new AbortController().signal;
  for (let turn = 0; turn <= TURNS; turn++) {
    for await (const _ of streaming.stream({ messages: [], tools: [], signal })) {
      // read every delta
    }
  }
}

test(`streamed tool calls, ${TURNS} turns of 20 KB arguments`, async ({ bench }) => {
  await bench("arguments whole", () => session(false)).run({ time: 2000, iterations: 5 });
  await bench("4-character deltas read off the model alone (no harness)", () => modelAlone()).run({
    time: 2000,
    iterations: 5,
  });
  await bench("arguments in 4-character deltas", () => session(true)).run({ time: 2000, iterations: 5 });
  await bench("4-character deltas, three observers", () => session(true, watchers())).run({
    time: 2000,
    iterations: 5,
  });
});
