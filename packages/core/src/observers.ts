import { errorMessage } from "./errors.js";
import type { RunEvent } from "./events.js";

/**
 * Something that watches a run without being its record: a tracer, a UI, an eval recorder. It sees every
 * event in order, right after the record sink; what it throws or rejects never ends the run.
 */
export interface EventObserver {
  /** Names it in the `observer_failed` event (default: its position among the run's observers). */
  readonly name?: string;
  write(event: RunEvent): void | Promise<void>;
}

/**
 * Feeds a run's observers. A failure is reported once per observer (it goes on receiving events, so a
 * tracer that dropped one span can still end the others). The report is an event like any other: emitted
 * from inside a delivery, it waits for that delivery to finish (see `RunContext.emit`).
 */
export class ObserverFanOut {
  readonly #observers: readonly EventObserver[];
  readonly #failed = new Set<number>();
  readonly #report: (observer: string, message: string) => void;

  constructor(observers: readonly EventObserver[], report: (observer: string, message: string) => void) {
    this.#observers = observers;
    this.#report = report;
  }

  /** Gives `event` to every observer, in the order they were given. */
  deliver(event: RunEvent): void {
    for (const [index, observer] of this.#observers.entries()) {
      try {
        const written = observer.write(event);
        if (written && typeof written.then === "function") {
          written.then(undefined, (error: unknown) => this.#fail(index, error));
        }
      } catch (error) {
        this.#fail(index, error);
      }
    }
  }

  #fail(index: number, error: unknown): void {
    if (this.#failed.has(index)) return;
    this.#failed.add(index);
    const observer = this.#observers[index]?.name ?? `observer ${index}`;
    this.#report(observer, errorMessage(error).slice(0, 2_000));
  }
}
