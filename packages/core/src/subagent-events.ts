import type { RunEvent } from "./events.js";

/**
 * How a child run's events travel in its parent's stream (and so in the parent's stored session): a tool
 * can only emit through its own call, so each child event is the `data` of a `tool_progress` event of the
 * call that started the child, keeping its own `runId`, `seq`, `parentRunId` and `parentToolCallId`. A
 * grandchild's event travels inside its parent's, at any depth. `@bridle/agents` writes them; whoever
 * reads a session (a tracer, the viewer) unwraps them with `subagentEventOf`.
 */
export interface SubagentEventData {
  readonly type: "subagent_event";
  readonly event: RunEvent;
}

export function isSubagentEventData(data: unknown): data is SubagentEventData {
  return (
    typeof data === "object" &&
    data !== null &&
    (data as SubagentEventData).type === "subagent_event" &&
    typeof (data as SubagentEventData).event === "object" &&
    (data as SubagentEventData).event !== null
  );
}

/** The child event a parent event carries, if it carries one. */
export function subagentEventOf(event: RunEvent): RunEvent | undefined {
  return event.type === "tool_progress" && isSubagentEventData(event.data) ? event.data.event : undefined;
}
