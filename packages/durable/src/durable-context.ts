// What the engine-neutral run body (run-body.ts) needs from the engine while a run executes.

/** A run's view of its engine, inside its execution. */
export interface DurableContext {
  readonly runId: string;
  /**
   * Runs `work` once as a checkpointed step: on a later execution of the run its recorded result is
   * returned without running it. A step that throws records nothing here: return failures as values.
   */
  step<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** Publishes a value under `key` for other processes to read (the pending approvals). */
  publish(key: string, value: unknown): Promise<void>;
  /** Waits, durably and as long as it takes, for a message sent to this run on `topic`. */
  receive<T>(topic: string): Promise<T>;
}
