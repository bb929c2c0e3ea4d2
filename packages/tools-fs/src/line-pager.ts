export interface PageLimits {
  /** 1-based number of the first line to keep. */
  readonly offset: number;
  /** Lines to keep at most. */
  readonly limit: number;
  /** Characters kept of one line; the rest is cut and counted. */
  readonly maxLineChars: number;
  /** Characters of kept text (all lines together) at most; the page ends before the line that would pass it. */
  readonly maxChars: number;
  /** Characters skipped at the start of the first line kept (the line at `offset`): a long line read in parts. */
  readonly skipChars?: number;
}

export interface PagedLine {
  readonly number: number;
  readonly text: string;
  /** The line's full length in characters, when it was cut. */
  readonly fullLength?: number;
}

/**
 * Cuts a text, fed in chunks, into one page of lines without ever holding more than a page (a single
 * 50 MB line costs `maxLineChars`, not 50 MB). After the page is full it can keep counting lines, so a
 * caller that has the whole file can say how many there are.
 */
export class LinePager {
  readonly lines: PagedLine[] = [];
  #limits: PageLimits;
  #lineNumber = 1;
  #current = "";
  #currentLength = 0;
  #pending = false;
  #keptChars = 0;
  #full = false;
  /** The first line that did not fit, when the page filled up. */
  #nextOffset: number | undefined;

  constructor(limits: PageLimits) {
    this.#limits = limits;
  }

  get full(): boolean {
    return this.#full;
  }

  get nextOffset(): number | undefined {
    return this.#nextOffset;
  }

  /** Lines seen so far (complete or started). */
  get linesSeen(): number {
    return this.#pending ? this.#lineNumber : this.#lineNumber - 1;
  }

  push(chunk: string): void {
    let position = 0;
    while (position < chunk.length) {
      const newline = chunk.indexOf("\n", position);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.#full && this.#lineNumber >= this.#limits.offset) {
        // Positions in this line before `skip` are counted but not kept.
        const from = position + Math.max(0, this.#skip() - this.#currentLength);
        const room = this.#limits.maxLineChars + 1 - this.#current.length;
        if (room > 0 && from < end) this.#current += chunk.slice(from, Math.min(end, from + room));
      }
      this.#currentLength += end - position;
      if (end > position) this.#pending = true;
      if (newline === -1) return;
      this.#endLine();
      position = newline + 1;
    }
  }

  /** Call once the text has ended: the last line may lack a newline. */
  finish(): void {
    if (this.#pending) this.#endLine();
  }

  #endLine(): void {
    if (!this.#full && this.#lineNumber >= this.#limits.offset) this.#keep();
    this.#lineNumber++;
    this.#current = "";
    this.#currentLength = 0;
    this.#pending = false;
  }

  #skip(): number {
    return this.#lineNumber === this.#limits.offset ? (this.#limits.skipChars ?? 0) : 0;
  }

  #keep(): void {
    let text = this.#current;
    let length = this.#currentLength;
    const skip = Math.min(this.#skip(), length);
    if (text.endsWith("\r") && length - skip === text.length) {
      text = text.slice(0, -1);
      length--;
    }
    const cut = length - skip > this.#limits.maxLineChars;
    if (cut) text = text.slice(0, this.#limits.maxLineChars);
    if (this.lines.length > 0 && this.#keptChars + text.length > this.#limits.maxChars) {
      this.#full = true;
      this.#nextOffset = this.#lineNumber;
      return;
    }
    // A line read from a column on always says how long it is: the text alone no longer tells.
    this.lines.push(
      cut || skip > 0
        ? { number: this.#lineNumber, text, fullLength: length }
        : { number: this.#lineNumber, text },
    );
    this.#keptChars += text.length;
    if (this.lines.length >= this.#limits.limit) {
      this.#full = true;
      this.#nextOffset = this.#lineNumber + 1;
    }
  }
}
