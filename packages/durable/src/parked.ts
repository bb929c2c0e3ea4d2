// A run that waits for a person while it runs from the worker queue does not keep its queue slot: its
// workflow ends, parked, with this as its (sealed) output, and answering it rewinds the workflow to the
// step that takes the decision, on the queue again (its continuation). Everything before that step is
// replayed from its checkpoints, so nothing that ran runs again.
import type { PendingDurableApproval } from "./engine.js";

export interface ParkedRun {
  readonly parked: {
    /** What the run waits on, as the person was shown it. */
    readonly pending: PendingDurableApproval;
    /** The topic its decision is kept under (durable-approver.ts `decisionTopic`). */
    readonly topic: string;
    /** The place (DBOS function id) of the step that takes the decision: the continuation starts there. */
    readonly resumeAt: number;
  };
}

export function isParked(value: unknown): value is ParkedRun {
  if (typeof value !== "object" || value === null || !("parked" in value)) return false;
  const parked = (value as ParkedRun).parked;
  return (
    typeof parked === "object" &&
    parked !== null &&
    typeof parked.topic === "string" &&
    Number.isInteger(parked.resumeAt) &&
    parked.resumeAt >= 0
  );
}

/** Thrown inside a run once it is parked: nothing more of this execution may run or be recorded. */
export class RunParked extends Error {
  constructor() {
    super("the run is parked until a person decides");
    this.name = "RunParked";
  }
}
