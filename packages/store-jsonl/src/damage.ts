import { type RunEvent, type StoreDamage, type StoredEvent, storeDamageEvent } from "@bridle/core";

/** A gap longer than this is reported by one notice, not one per entry (a crafted line could claim 2^53). */
const MAX_GAP_NOTICES = 1024;

/**
 * Turns the damaged lines of one session file into reports, in sequence order. An entry that should be
 * there and is not (its line does not parse, or is gone) becomes an `unreadable` notice at its sequence
 * number; damaged lines that stand for no entry are reported on the entry after them.
 */
export class DamageTracker {
  readonly #path: string;
  /** The sequence number the next entry should have. */
  #expected: number;
  /** Damaged whole lines since the last good entry, described. */
  #lines: string[] = [];
  #last: RunEvent | undefined;

  constructor(path: string, first: number) {
    this.#path = path;
    this.#expected = first;
  }

  get expected(): number {
    return this.#expected;
  }

  /** Whether entry `seq` may be skipped unread: it comes in order and no damage waits to be placed. */
  expects(seq: number): boolean {
    return seq >= this.#expected && this.#lines.length === 0;
  }

  skip(seq: number): void {
    this.#expected = seq + 1;
  }

  line(lineNumber: number, why: string): void {
    this.#lines.push(`line ${lineNumber} ${why}`);
  }

  /** The good event just read: a notice after it borrows its run id and time. */
  seen(event: RunEvent): void {
    this.#last = event;
  }

  /** The reports due before good entry `seq`. */
  before(seq: number): { notices: StoredEvent[]; stray?: StoreDamage } {
    const lines = this.#take();
    const from = this.#expected;
    this.#expected = seq + 1;
    if (seq === from) {
      if (lines.length === 0) return { notices: [] };
      const message = `${this.#path}: ${lines.join("; ")}, just before entry ${seq}, standing for no entry (ignored)`;
      return { notices: [], stray: { kind: "stray_lines", message } };
    }
    const why = lines.length > 0 ? lines.join("; ") : "no line of the file holds it (lines were removed)";
    return { notices: this.#gap(from, seq - from, why) };
  }

  /** Whole damaged lines after the last good entry: each was an entry written (the writer counts them alike). */
  atEnd(): StoredEvent[] {
    const lines = this.#take();
    const from = this.#expected;
    this.#expected += lines.length;
    return lines.map((line, index) =>
      this.#notice(from + index, `entry ${from + index} is unreadable: ${line}`),
    );
  }

  #gap(from: number, count: number, why: string): StoredEvent[] {
    if (count > MAX_GAP_NOTICES) {
      return [this.#notice(from, `entries ${from} to ${from + count - 1} are unreadable: ${why}`)];
    }
    return Array.from({ length: count }, (_, index) =>
      this.#notice(from + index, `entry ${from + index} is unreadable: ${why}`),
    );
  }

  #notice(sessionSeq: number, what: string): StoredEvent {
    const message = `${this.#path}: ${what}`;
    return {
      sessionSeq,
      event: storeDamageEvent(message, this.#last),
      damage: { kind: "unreadable", message },
    };
  }

  #take(): string[] {
    const lines = this.#lines;
    this.#lines = [];
    return lines;
  }
}
