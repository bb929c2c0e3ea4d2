import { isUtf8 } from "node:buffer";
import type { TextEncodingName } from "./tag.js";

export type LineEnding = "\n" | "\r\n";

export interface Line {
  readonly text: string;
  /** The ending this line had on disk; "" only for a last line with no final newline. */
  readonly eol: LineEnding | "";
  /** For a line read from the file: its index there, so writing it back copies its original bytes. */
  readonly source?: number;
}

/**
 * A text file split into lines so that joining them back gives the same bytes: each line keeps its own
 * ending, and the BOM, the encoding and the presence of a final newline are remembered.
 */
export interface TextDocument {
  readonly encoding: TextEncodingName;
  readonly bom: boolean;
  readonly lines: readonly Line[];
  /** The ending new lines get: the one most lines already use. */
  readonly eol: LineEnding;
  /** Whether the last line ends with a newline (an empty file counts as yes: new text gets one). */
  readonly finalNewline: boolean;
  readonly bytes: Buffer;
  /** Byte offset where each line starts in `bytes`. */
  readonly starts: readonly number[];
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Whether the bytes look like a binary file rather than text (a NUL byte, as git and ripgrep decide). */
export function looksBinary(bytes: Buffer): boolean {
  return bytes.indexOf(0) !== -1;
}

export function parseDocument(bytes: Buffer): TextDocument {
  const encoding: TextEncodingName = isUtf8(bytes) ? "utf8" : "latin1";
  const bom = encoding === "utf8" && bytes.subarray(0, 3).equals(BOM);
  const text = bytes.toString(encoding, bom ? 3 : 0);
  const lines: Line[] = [];
  const starts: number[] = [];
  let crlf = 0;
  let start = 0;
  // A 0x0A byte is always a line feed in UTF-8 and Latin-1, so the n-th "\n" in the text is the n-th 0x0A
  // in the bytes: following both gives each line's byte offset without re-encoding anything.
  let byteStart = bom ? 3 : 0;
  for (;;) {
    const newline = text.indexOf("\n", start);
    if (newline === -1) break;
    const source = lines.length;
    starts.push(byteStart);
    if (newline > start && text.charCodeAt(newline - 1) === 13) {
      crlf++;
      lines.push({ text: text.slice(start, newline - 1), eol: "\r\n", source });
    } else {
      lines.push({ text: text.slice(start, newline), eol: "\n", source });
    }
    start = newline + 1;
    byteStart = bytes.indexOf(10, byteStart) + 1;
  }
  const finalNewline = start === text.length;
  if (!finalNewline || lines.length === 0) {
    starts.push(byteStart);
    lines.push({ text: text.slice(start), eol: "", source: lines.length });
  }
  const lf = lines.length - crlf - (lines.at(-1)?.eol === "" ? 1 : 0);
  return { encoding, bom, lines, eol: crlf > lf ? "\r\n" : "\n", finalNewline, bytes, starts };
}

/**
 * The bytes of a document whose lines were edited, keeping its encoding, BOM and final-newline state.
 * Runs of lines that come straight from the file are copied as byte slices; only new lines are encoded,
 * so a small edit of a large file costs a copy, not a re-encoding.
 */
export function serializeDocument(doc: TextDocument, lines: readonly Line[]): Buffer {
  const chunks: Buffer[] = doc.bom ? [BOM] : [];
  let sliceFrom = -1;
  let sliceTo = -1;
  let fresh = "";
  const flushSlice = () => {
    if (sliceFrom >= 0) chunks.push(doc.bytes.subarray(sliceFrom, sliceTo));
    sliceFrom = -1;
  };
  const flushFresh = () => {
    if (fresh) chunks.push(Buffer.from(fresh, doc.encoding));
    fresh = "";
  };
  const last = lines.length - 1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as Line;
    let eol: string = line.eol;
    if (i < last) eol ||= doc.eol;
    // The one empty line an empty file is shown as writes nothing; any line put in its place ends with a newline.
    else if (doc.bytes.length === (doc.bom ? 3 : 0) && line.source !== undefined) eol = "";
    else eol = doc.finalNewline ? eol || doc.eol : "";
    if (line.source !== undefined && eol === line.eol) {
      const from = doc.starts[line.source] as number;
      const to = doc.starts[line.source + 1] ?? doc.bytes.length;
      if (sliceFrom >= 0 && sliceTo === from) {
        sliceTo = to;
      } else {
        flushSlice();
        flushFresh();
        sliceFrom = from;
        sliceTo = to;
      }
    } else {
      flushSlice();
      fresh += line.text + eol;
    }
  }
  flushSlice();
  flushFresh();
  return Buffer.concat(chunks);
}

/** Split new text from the model into lines: any line break counts, and one trailing break is dropped. */
export function splitNewText(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}
