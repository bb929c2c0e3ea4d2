import type { EventSink, RunEvent, RunEventType } from "@bridle/core";

/**
 * How a child run's events reach the parent's stream. A tool can only emit through its own call, so each
 * child event travels as the `data` of a `tool_progress` event of the call that started the child. The
 * child's event keeps its own `runId`, `seq`, `parentRunId` and `parentToolCallId`. Carrying them this way,
 * rather than as top-level events, keeps the parent's transcript projection and its stored session free
 * of the child's turns; `withSubagentEvents` unwraps them for consumers that want them as events.
 */
export interface SubagentEventData {
  readonly type: "subagent_event";
  readonly event: RunEvent;
}

/** Which child events are carried in the parent's stream while the spawning call runs. */
export type ChildEventMode = "all" | "lifecycle" | "none";

const STREAMING: ReadonlySet<RunEventType> = new Set<RunEventType>(["text_delta", "reasoning_delta"]);

export function carries(mode: ChildEventMode, event: RunEvent): boolean {
  if (mode === "none") return false;
  return mode === "all" || !STREAMING.has(event.type);
}

export function isSubagentEventData(data: unknown): data is SubagentEventData {
  return (
    typeof data === "object" &&
    data !== null &&
    (data as SubagentEventData).type === "subagent_event" &&
    typeof (data as SubagentEventData).event === "object"
  );
}

/** The child event a parent event carries, if it carries one. */
export function subagentEventOf(event: RunEvent): RunEvent | undefined {
  return event.type === "tool_progress" && isSubagentEventData(event.data) ? event.data.event : undefined;
}

/**
 * A sink that passes every event to `sink`, and after a carried child event the child event itself (and a
 * grandchild's event that one carries, at any depth): a tracer then nests each subagent's spans under the
 * call that started it (they are correlated by `parentRunId` and `parentToolCallId`). Do not put it in
 * front of a session store's sink: the child's events would join the parent's session.
 */
export function withSubagentEvents(sink: EventSink): EventSink {
  return {
    async write(event: RunEvent): Promise<void> {
      await sink.write(event);
      // A grandchild's event travels inside its parent's, which travels inside the top run's call.
      for (let child = subagentEventOf(event); child; child = subagentEventOf(child)) await sink.write(child);
    },
  };
}
