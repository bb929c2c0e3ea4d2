import { AssertionError } from "node:assert";
import type { Model, ModelEvent, ModelRequest } from "@bridle/core";

/** Everything one `Model.stream` call produced, with its terminal event split out. */
export interface ModelRun {
  readonly events: readonly ModelEvent[];
  readonly terminal: Extract<ModelEvent, { type: "done" | "error" }>;
  readonly text: string;
  readonly reasoning: string;
  /** Tool-argument deltas joined per tool call index. */
  readonly argumentsByIndex: ReadonlyMap<number, string>;
}

/**
 * Streams a request to the end. Fails the test if the adapter throws, emits anything after its terminal
 * event, or ends without exactly one `done` or `error`. `onEvent` can act mid-stream (an abort, say).
 */
export async function collectModelEvents(
  model: Model,
  request: ModelRequest,
  onEvent?: (event: ModelEvent) => void,
): Promise<ModelRun> {
  const events: ModelEvent[] = [];
  for await (const event of model.stream(request)) {
    events.push(event);
    onEvent?.(event);
  }
  const terminal = expectOneTerminal(events);
  let text = "";
  let reasoning = "";
  const argumentsByIndex = new Map<number, string>();
  for (const event of events) {
    if (event.type === "text_delta") text += event.delta;
    else if (event.type === "reasoning_delta") reasoning += event.delta;
    else if (event.type === "tool_call_delta") {
      argumentsByIndex.set(event.index, (argumentsByIndex.get(event.index) ?? "") + event.argumentsDelta);
    }
  }
  return { events, terminal, text, reasoning, argumentsByIndex };
}

/**
 * Asserts the Model contract's ending: exactly one `done` or `error`, and it is the last event. Throws
 * node's `AssertionError` (no test runner needed), which every runner reports as a failed assertion.
 */
export function expectOneTerminal(
  events: readonly ModelEvent[],
): Extract<ModelEvent, { type: "done" | "error" }> {
  const terminals = events.filter((event) => event.type === "done" || event.type === "error");
  if (terminals.length !== 1) {
    throw new AssertionError({
      message: `exactly one terminal event: got ${terminals.length} (${events.map((e) => e.type).join(", ")})`,
      actual: terminals.length,
      expected: 1,
      operator: "strictEqual",
    });
  }
  const last = events.at(-1);
  if (last?.type !== "done" && last?.type !== "error") {
    throw new AssertionError({
      message: `the terminal event comes last: the last event is ${last?.type ?? "none"}`,
      actual: last?.type,
      expected: terminals[0]?.type,
      operator: "strictEqual",
    });
  }
  return last;
}
