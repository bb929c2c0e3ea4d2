import { isUtf8 } from "node:buffer";
import type { TextEncodingName } from "./tag.js";

export type LineEnding = "\n" | "\r\n";

export interface Line {
  readonly text: string;
  /** The ending this line had on disk; "" only for a last line with no final newline. */
  readonly eol: LineEnding | "";
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
  let crlf = 0;
  let start = 0;
  for (;;) {
    const newline = text.indexOf("\n", start);
    if (newline === -1) break;
    if (newline > start && text.charCodeAt(newline - 1) === 13) {
      crlf++;
      lines.push({ text: text.slice(start, newline - 1), eol: "\r\n" });
    } else {
      lines.push({ text: text.slice(start, newline), eol: "\n" });
    }
    start = newline + 1;
  }
  const finalNewline = start === text.length;
  if (!finalNewline || lines.length === 0) lines.push({ text: text.slice(start), eol: "" });
  const lf = lines.length - crlf - (lines.at(-1)?.eol === "" ? 1 : 0);
  return { encoding, bom, lines, eol: crlf > lf ? "\r\n" : "\n", finalNewline };
}

/** The bytes of a document whose lines were edited, keeping its encoding, BOM and final-newline state. */
export function serializeDocument(doc: TextDocument, lines: readonly Line[]): Buffer {
  const parts: string[] = [];
  const last = lines.length - 1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as Line;
    let eol: string = line.eol;
    if (i < last) eol ||= doc.eol;
    else eol = doc.finalNewline ? eol || doc.eol : "";
    parts.push(line.text, eol);
  }
  const body = Buffer.from(parts.join(""), doc.encoding);
  return doc.bom ? Buffer.concat([BOM, body]) : body;
}

/** Split new text from the model into lines: any line break counts, and one trailing break is dropped. */
export function splitNewText(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}
