import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export interface CaptureOptions {
  /** Bytes the model sees: half from the head, half from the tail. */
  readonly maxBytes: number;
  /** Where the full output goes once it passes `maxBytes`. */
  readonly spillPath: string;
  /** Bytes written to the spill file at most; past it the output is runaway and the command is stopped. */
  readonly spillLimit: number;
  /** How the marker in the text names the spill file (a workspace-relative path). */
  readonly shownPath?: string;
  /** Called once, before the spill file is created (to prepare its folder). */
  readonly beforeSpill?: () => void;
}

export interface CapturedOutput {
  /** What the model sees: everything, or head + marker + tail. */
  readonly text: string;
  readonly totalBytes: number;
  readonly truncated: boolean;
  /** The file holding the full output (up to the spill limit), when it was truncated. */
  readonly spillPath: string | undefined;
  /** The output passed the spill limit: the spill file holds only its first `spillLimit` bytes. */
  readonly runaway: boolean;
}

/**
 * Keeps one stream's output bounded: the whole of it while it is small; past `maxBytes`, its head and
 * tail in memory and all of it in a spill file the model can read with file tools.
 */
export class OutputCapture {
  readonly #options: CaptureOptions;
  readonly #half: number;
  #chunks: Buffer[] = [];
  #total = 0;
  #head: Buffer | undefined;
  #tail: Buffer = Buffer.alloc(0);
  #fd: number | undefined;
  #spilled = 0;
  #runaway = false;

  constructor(options: CaptureOptions) {
    this.#options = options;
    this.#half = Math.max(1, Math.floor(options.maxBytes / 2));
  }

  get totalBytes(): number {
    return this.#total;
  }

  get runaway(): boolean {
    return this.#runaway;
  }

  /** Add a chunk; false once the output is runaway (the caller stops the command). */
  push(chunk: Uint8Array): boolean {
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.#total += buffer.length;
    if (!this.#head) {
      this.#chunks.push(buffer);
      if (this.#total <= this.#options.maxBytes) return true;
      const all = Buffer.concat(this.#chunks);
      this.#chunks = [];
      this.#head = all.subarray(0, this.#half);
      this.#tail = Buffer.from(all.subarray(Math.max(this.#half, all.length - this.#half)));
      this.#write(all);
      return !this.#runaway;
    }
    const joined = Buffer.concat([this.#tail, buffer]);
    this.#tail = Buffer.from(joined.subarray(Math.max(0, joined.length - this.#half)));
    this.#write(buffer);
    return !this.#runaway;
  }

  #write(buffer: Buffer): void {
    const room = this.#options.spillLimit - this.#spilled;
    if (buffer.length > room) this.#runaway = true;
    if (room <= 0) return;
    const part = buffer.length > room ? buffer.subarray(0, room) : buffer;
    // Synchronous writes keep the file in stream order without queueing chunks in memory.
    if (this.#fd === undefined) {
      this.#options.beforeSpill?.();
      mkdirSync(dirname(this.#options.spillPath), { recursive: true });
      this.#fd = openSync(this.#options.spillPath, "w");
    }
    writeSync(this.#fd, part);
    this.#spilled += part.length;
  }

  finish(): CapturedOutput {
    if (!this.#head) {
      return {
        text: Buffer.concat(this.#chunks).toString("utf8"),
        totalBytes: this.#total,
        truncated: false,
        spillPath: undefined,
        runaway: false,
      };
    }
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    const omitted = this.#total - this.#head.length - this.#tail.length;
    const marker = `\n[… ${omitted} bytes omitted of ${this.#total}; full output in ${this.#options.shownPath ?? this.#options.spillPath} …]\n`;
    return {
      text: this.#head.toString("utf8") + marker + this.#tail.toString("utf8"),
      totalBytes: this.#total,
      truncated: true,
      spillPath: this.#options.spillPath,
      runaway: this.#runaway,
    };
  }
}
