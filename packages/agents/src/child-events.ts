import {
  type EventSink,
  isSubagentEventData,
  type RunEvent,
  type RunEventType,
  type SubagentEventData,
  subagentEventOf,
} from "@bridle/core";

// The carried events' shape is core's (a stored session holds it; tracers and the viewer read it).
export { isSubagentEventData, type SubagentEventData, subagentEventOf };

/** Which child events are carried in the parent's stream while the spawning call runs. */
export type ChildEventMode = "all" | "lifecycle" | "none";

const STREAMING: ReadonlySet<RunEventType> = new Set<RunEventType>(["text_delta", "reasoning_delta"]);

export function carries(mode: ChildEventMode, event: RunEvent): boolean {
  if (mode === "none") return false;
  return mode === "all" || !STREAMING.has(event.type);
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
