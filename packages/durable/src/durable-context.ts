// What the engine-neutral run body (run-body.ts) needs from the engine while a run executes.
import type { PendingDurableApproval } from "./engine.js";
import type { ParkedRun } from "./parked.js";
import type { RunSeal } from "./seal.js";

/** A run's view of its engine, inside its execution. */
export interface DurableContext {
  readonly runId: string;
  /**
   * Runs `work` once as a checkpointed step: on a later execution of the run its recorded result is
   * returned without running it, after checking its seal (a checkpoint edited in the database is refused
   * with `envelope_tampered`). A step that throws records nothing here: return failures as values.
   */
  step<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** Publishes a value under `key` for other processes to read (the pending approvals). */
  publish(key: string, value: unknown): Promise<void>;
  /**
   * The decision a person gave on `pending` (kept under `topic`), as it was stored: sealed, for the
   * caller to open. `waiting` is called when there is none yet. A run that may wait where it runs waits
   * for it; one that holds a worker's queue slot parks instead: this throws `RunParked`, aborts
   * `signal`, and the run ends with `parked()` as its output, to continue once the decision is given.
   */
  awaitDecision(topic: string, pending: PendingDurableApproval, waiting: () => void): Promise<unknown>;
  /** The run's abort signal (the harness's): aborted when the run parks. */
  readonly signal: AbortSignal;
  /** Set once the run parked: nothing after it runs or is recorded in this execution. */
  parked(): ParkedRun | undefined;
  /** Seals what other processes read and act on (pending approvals). */
  readonly seal: RunSeal;
  /**
   * Opens what another process sent or the database returned (`RunSeal.open`), remembering a refusal:
   * the run ends failed with it even when the harness turned the throw into a stop reason.
   */
  open<T>(scope: string, sealed: unknown, what: string): T;
  /** Remembers `error` as this execution's refusal (the first one stays) and returns it, to throw. */
  refuse(error: Error): Error;
  /** The first thing this execution refused, if any. */
  refusal(): Error | undefined;
}
