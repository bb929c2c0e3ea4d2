import type { Output } from "./render.js";

interface Stream {
  write(text: string): unknown;
}

/**
 * A run's stdout and stderr, written in the order the run wrote to them. With `coalesce`, what one turn
 * of the event loop writes leaves at the end of that turn, as one write per change of stream, instead of
 * one write per line: a write to a pipe wakes the reader, which cost the harness a quarter of a
 * millisecond per tool turn (three lines) in the overhead benchmark. The run command coalesces only when
 * stderr is not a terminal: a person watching gets every line as it happens, and no prompt is ever
 * waiting for them there.
 *
 * Anything written to the streams without this object must `flush()` first, and so must the end of the
 * run; a process that exits with lines pending writes them on its way out.
 */
export class OrderedOutput {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly #pending: [Stream, string][] = [];
  #scheduled = false;
  readonly #onExit = () => this.flush();

  constructor(stdout: Stream, stderr: Stream, options: { readonly coalesce: boolean }) {
    if (!options.coalesce) {
      this.stdout = { write: (text) => void stdout.write(text) };
      this.stderr = { write: (text) => void stderr.write(text) };
      return;
    }
    this.stdout = { write: (text) => this.#queue(stdout, text) };
    this.stderr = { write: (text) => this.#queue(stderr, text) };
    process.on("exit", this.#onExit);
  }

  /** Write what is pending now, in order. */
  flush(): void {
    let stream: Stream | undefined;
    let text = "";
    for (const [to, part] of this.#pending.splice(0)) {
      if (to !== stream && stream) {
        stream.write(text);
        text = "";
      }
      stream = to;
      text += part;
    }
    if (stream && text) stream.write(text);
  }

  /** Flush, and stop writing at exit. */
  close(): void {
    this.flush();
    process.off("exit", this.#onExit);
  }

  #queue(stream: Stream, text: string): void {
    if (text === "") return;
    this.#pending.push([stream, text]);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.flush();
    });
  }
}
