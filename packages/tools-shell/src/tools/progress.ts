import { StringDecoder } from "node:string_decoder";
import type { OutputStream } from "../runners/runner.js";

/** What a `tool_progress` event of the shell tools carries. */
export interface ShellProgress {
  readonly stream: OutputStream;
  readonly text: string;
  /** Set on the last event once the progress budget is spent; the output itself is still captured. */
  readonly truncated?: true;
}

/**
 * Streams output to the run as progress events, coalesced (at most one event per stream every
 * `intervalMs`, or sooner past `chunkBytes`) and bounded (`maxBytes` in all), so a runaway command
 * cannot flood the event stream or the session store.
 */
export class ProgressPump {
  readonly #emit: (data: ShellProgress) => void;
  readonly #decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  readonly #pending = { stdout: "", stderr: "" };
  #timer: NodeJS.Timeout | undefined;
  #sent = 0;
  #done = false;

  constructor(
    emit: (data: ShellProgress) => void,
    readonly intervalMs = 100,
    readonly chunkBytes = 8_192,
    readonly maxBytes = 1_048_576,
  ) {
    this.#emit = emit;
  }

  push(stream: OutputStream, chunk: Uint8Array): void {
    if (this.#done) return;
    this.#pending[stream] += this.#decoders[stream].write(
      Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
    );
    if (this.#pending[stream].length >= this.chunkBytes) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const stream of ["stdout", "stderr"] as const) {
      const text = this.#pending[stream];
      if (text === "" || this.#done) continue;
      this.#pending[stream] = "";
      const room = this.maxBytes - this.#sent;
      if (text.length >= room) {
        this.#emit({ stream, text: text.slice(0, room), truncated: true });
        this.#done = true;
        return;
      }
      this.#sent += text.length;
      this.#emit({ stream, text });
    }
  }

  close(): void {
    for (const stream of ["stdout", "stderr"] as const) this.#pending[stream] += this.#decoders[stream].end();
    this.flush();
    this.#done = true;
  }
}
