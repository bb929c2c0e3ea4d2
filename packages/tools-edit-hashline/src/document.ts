import { isUtf8 } from "node:buffer";
import type { TextEncodingName } from "./tag.js";

export type LineEnding = "\n" | "\r\n";
export type Eol = LineEnding | "";

/** Lines by 0-based index: a file as read, or as an edit would leave it. Text is decoded on demand. */
export interface LineSource {
  readonly count: number;
  text(index: number): string;
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Whether the bytes look like a binary file rather than text (a NUL byte, as git and ripgrep decide). */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.indexOf(0) !== -1;
}

/**
 * A text file as lines, without copying it: only where each line starts is recorded, and a line is
 * decoded when someone asks for it. Each line keeps its own ending on disk; the encoding (UTF-8 when the
 * bytes are valid UTF-8, else Latin-1, one character per byte), the BOM and the presence of a final newline
 * are remembered, so writing it back gives the same bytes.
 */
export class TextDocument implements LineSource {
  readonly bytes: Buffer;
  readonly encoding: TextEncodingName;
  readonly bom: boolean;
  /** The ending new lines get: the one most lines already use. */
  readonly eol: LineEnding;
  /** Whether the last line ends with a newline (an empty file counts as yes: new text gets one). */
  readonly finalNewline: boolean;
  /** Whether the file holds no text at all (it is then shown as one empty line). */
  readonly empty: boolean;
  readonly #starts: number[];

  constructor(bytes: Buffer) {
    this.bytes = bytes;
    this.encoding = isUtf8(bytes) ? "utf8" : "latin1";
    this.bom = this.encoding === "utf8" && bytes.subarray(0, 3).equals(BOM);
    const first = this.bom ? 3 : 0;
    this.empty = bytes.length === first;
    // A 0x0A byte is always a line feed in UTF-8 and in Latin-1, so lines are found on the bytes themselves.
    const starts: number[] = [];
    let crlf = 0;
    let pos = first;
    for (;;) {
      const newline = bytes.indexOf(10, pos);
      if (newline === -1) break;
      starts.push(pos);
      if (newline > pos && bytes[newline - 1] === 13) crlf++;
      pos = newline + 1;
    }
    this.finalNewline = pos === bytes.length;
    const lf = starts.length - crlf;
    if (!this.finalNewline || starts.length === 0) starts.push(pos);
    this.#starts = starts;
    this.eol = crlf > lf ? "\r\n" : "\n";
  }

  get count(): number {
    return this.#starts.length;
  }

  /** Byte range of line `index` including its ending. */
  span(index: number): { readonly from: number; readonly to: number } {
    return { from: this.#starts[index] as number, to: this.#starts[index + 1] ?? this.bytes.length };
  }

  eolOf(index: number): Eol {
    const { from, to } = this.span(index);
    if (to === from || this.bytes[to - 1] !== 10) return "";
    return to - 1 > from && this.bytes[to - 2] === 13 ? "\r\n" : "\n";
  }

  text(index: number): string {
    const { from, to } = this.span(index);
    return this.bytes.toString(this.encoding, from, to - this.eolOf(index).length);
  }
}

/** A run of lines in an edited file: original lines `from`..`to` (exclusive), or new text. */
export type Segment =
  | { readonly kind: "kept"; readonly from: number; readonly to: number }
  | { readonly kind: "new"; readonly texts: readonly string[]; readonly eol: LineEnding };

/** The lines of a document after edits, as segments of kept and new lines; nothing is copied. */
export class EditedLines implements LineSource {
  readonly doc: TextDocument;
  readonly segments: readonly Segment[];
  /** Index of each segment's first line in the edited file. */
  readonly #firsts: number[] = [];
  readonly count: number;

  constructor(doc: TextDocument, segments: readonly Segment[]) {
    this.doc = doc;
    this.segments = segments;
    let count = 0;
    for (const segment of segments) {
      this.#firsts.push(count);
      count += segment.kind === "kept" ? segment.to - segment.from : segment.texts.length;
    }
    this.count = count;
  }

  text(index: number): string {
    const at = this.#segmentAt(index);
    const segment = this.segments[at] as Segment;
    const offset = index - (this.#firsts[at] as number);
    return segment.kind === "kept" ? this.doc.text(segment.from + offset) : (segment.texts[offset] as string);
  }

  #segmentAt(index: number): number {
    let low = 0;
    let high = this.#firsts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.#firsts[mid] as number) <= index) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

/**
 * The bytes of the edited file, keeping the document's encoding, BOM and final-newline state. Kept lines
 * are copied as byte slices, so a small edit of a large file costs a copy, not a re-encoding, and every
 * untouched byte stays exactly as it was.
 */
export function serializeDocument(lines: EditedLines): Buffer {
  const { doc } = lines;
  const chunks: Buffer[] = doc.bom ? [BOM] : [];
  const last = lines.count - 1;
  // The ending a line gets at position `at`: its own, a line ending once it is no longer last, and the
  // file's final-newline state when it is last. The one empty line of an empty file writes nothing.
  const wanted = (eol: Eol, at: number, virtual: boolean): Eol => {
    if (at < last) return eol || doc.eol;
    if (virtual) return "";
    return doc.finalNewline ? eol || doc.eol : "";
  };
  let at = 0;
  for (const segment of lines.segments) {
    if (segment.kind === "new") {
      let text = "";
      for (const line of segment.texts) text += line + wanted(segment.eol, at++, false);
      chunks.push(Buffer.from(text, doc.encoding));
      continue;
    }
    // Every kept line but the segment's last keeps its ending; only the last can need a different one.
    const lastKept = segment.to - 1;
    if (lastKept > segment.from) {
      chunks.push(doc.bytes.subarray(doc.span(segment.from).from, doc.span(lastKept).from));
      at += lastKept - segment.from;
    }
    const own = doc.eolOf(lastKept);
    const eol = wanted(own, at++, doc.empty);
    const span = doc.span(lastKept);
    if (eol === own) {
      chunks.push(doc.bytes.subarray(span.from, span.to));
    } else {
      chunks.push(doc.bytes.subarray(span.from, span.to - own.length), Buffer.from(eol, "latin1"));
    }
  }
  return Buffer.concat(chunks);
}

/** Split new text from the model into lines: any line break counts, and one trailing break is dropped. */
export function splitNewText(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}
