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
 * tracer that dropped one span can still end the others); the report waits until the event being
 * delivered has reached everyone, so the stream stays in order.
 */
export class ObserverFanOut {
  readonly #observers: readonly EventObserver[];
  readonly #failed = new Set<number>();
  readonly #report: (observer: string, message: string) => void;
  #deferred: { observer: string; message: string }[] = [];
  #delivering = false;

  constructor(observers: readonly EventObserver[], report: (observer: string, message: string) => void) {
    this.#observers = observers;
    this.#report = report;
  }

  get size(): number {
    return this.#observers.length;
  }

  /** Gives `event` to every observer, in the order they were given. */
  deliver(event: RunEvent): void {
    this.#delivering = true;
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
    this.#delivering = false;
  }

  /** Reports failures held back while an event was being delivered; call once the event is delivered. */
  flush(): void {
    const deferred = this.#deferred;
    this.#deferred = [];
    for (const { observer, message } of deferred) this.#report(observer, message);
  }

  #fail(index: number, error: unknown): void {
    if (this.#failed.has(index)) return;
    this.#failed.add(index);
    const observer = this.#observers[index]?.name ?? `observer ${index}`;
    const failure = { observer, message: errorMessage(error).slice(0, 2_000) };
    if (this.#delivering) this.#deferred.push(failure);
    else this.#report(failure.observer, failure.message);
  }
}
