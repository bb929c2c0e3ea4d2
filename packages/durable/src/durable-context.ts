// What the engine-neutral run body (run-body.ts) needs from the engine while a run executes.
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
  /** Waits, durably and as long as it takes, for a message sent to this run on `topic`. */
  receive<T>(topic: string): Promise<T>;
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
