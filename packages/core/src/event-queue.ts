/**
 * A single-consumer async queue: the run pushes, one iterator pulls. Pushing never blocks the run; events
 * wait in order until the consumer takes them.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #head = 0;
  #closed = false;
  #waiter: ((result: IteratorResult<T>) => void) | undefined;
  #iterated = false;
  readonly #onReturn: () => void;

  constructor(onReturn: () => void = () => {}) {
    this.#onReturn = onReturn;
  }

  push(item: T): void {
    if (this.#closed) return;
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = undefined;
      waiter({ value: item, done: false });
    } else {
      this.#items.push(item);
    }
  }

  close(): void {
    this.#closed = true;
    const waiter = this.#waiter;
    if (waiter && this.#head >= this.#items.length) {
      this.#waiter = undefined;
      waiter({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.#iterated) throw new Error("a run's event stream can be iterated only once");
    this.#iterated = true;
    return {
      next: () => {
        if (this.#head < this.#items.length) {
          const value = this.#items[this.#head] as T;
          this.#items[this.#head] = undefined as T;
          this.#head++;
          if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
            this.#items = this.#items.slice(this.#head);
            this.#head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.#waiter = resolve;
        });
      },
      return: () => {
        // The consumer stopped early: the producer decides what that means (the run is aborted).
        this.#onReturn();
        this.#closed = true;
        this.#items = [];
        this.#head = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
