import { ToolFailure } from "@bridle/core";

/**
 * How a text file is stored on disk. Decoding then encoding with the same format gives back the original
 * bytes exactly, so an edit changes only the bytes it means to change.
 */
export interface TextFormat {
  /** `latin1` is the fallback for files that are not valid UTF-8: one byte per character, lossless. */
  readonly encoding: "utf8" | "utf16le" | "utf16be" | "latin1";
  readonly bom: boolean;
  /** The dominant line ending: `crlf` only when every line break is CRLF. */
  readonly eol: "lf" | "crlf";
  readonly finalNewline: boolean;
}

export interface DecodedText {
  readonly text: string;
  readonly format: TextFormat;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** Bytes git and ripgrep inspect before calling a file binary. */
export const BINARY_SNIFF_BYTES = 8_000;

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}

/** The encoding a file's first bytes announce, and how many bytes the BOM takes. */
export function sniffEncoding(head: Uint8Array): { encoding: TextFormat["encoding"]; bomBytes: number } {
  if (startsWith(head, UTF8_BOM)) return { encoding: "utf8", bomBytes: 3 };
  if (startsWith(head, [0xff, 0xfe])) return { encoding: "utf16le", bomBytes: 2 };
  if (startsWith(head, [0xfe, 0xff])) return { encoding: "utf16be", bomBytes: 2 };
  return { encoding: "utf8", bomBytes: 0 };
}

/** A NUL byte near the start marks a binary file (UTF-16 with a BOM is text, though full of NULs). */
export function looksBinary(head: Uint8Array): boolean {
  if (sniffEncoding(head).encoding !== "utf8") return false;
  const end = Math.min(head.length, BINARY_SNIFF_BYTES);
  for (let index = 0; index < end; index++) if (head[index] === 0) return true;
  return false;
}

function swapBytes(bytes: Uint8Array): Buffer {
  const out = Buffer.from(bytes);
  out.swap16();
  return out;
}

export function decodeText(bytes: Uint8Array): DecodedText {
  const sniffed = sniffEncoding(bytes);
  const body = bytes.subarray(sniffed.bomBytes);
  let encoding = sniffed.encoding;
  let text: string;
  if (encoding === "utf16le" || encoding === "utf16be") {
    if (body.length % 2 !== 0) throw new ToolFailure("InvalidInput", "the file is truncated UTF-16");
    const little = encoding === "utf16le" ? Buffer.from(body) : swapBytes(body);
    text = little.toString("utf16le");
  } else {
    try {
      text = strictUtf8.decode(body);
    } catch {
      encoding = "latin1";
      text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("latin1");
    }
  }
  const crlf = countOf(text, "\r\n");
  const lf = countOf(text, "\n");
  return {
    text,
    format: {
      encoding,
      bom: sniffed.bomBytes > 0,
      eol: crlf > 0 && crlf === lf ? "crlf" : "lf",
      finalNewline: text.endsWith("\n"),
    },
  };
}

export function encodeText(text: string, format: TextFormat): Buffer {
  let body: Buffer;
  switch (format.encoding) {
    case "utf8":
      body = Buffer.from(text, "utf8");
      break;
    case "utf16le":
      body = Buffer.from(text, "utf16le");
      break;
    case "utf16be":
      body = swapBytes(Buffer.from(text, "utf16le"));
      break;
    case "latin1":
      for (let index = 0; index < text.length; index++) {
        if (text.charCodeAt(index) > 0xff) {
          throw new ToolFailure(
            "InvalidInput",
            `the file is not UTF-8 (it is kept as single-byte Latin-1) and the new text has a character it cannot store: ${JSON.stringify(text[index])}`,
          );
        }
      }
      body = Buffer.from(text, "latin1");
      break;
  }
  if (!format.bom) return body;
  const bom =
    format.encoding === "utf8"
      ? Buffer.from(UTF8_BOM)
      : Buffer.from(format.encoding === "utf16le" ? [0xff, 0xfe] : [0xfe, 0xff]);
  return Buffer.concat([bom, body]);
}

/** Give model-written text the file's line endings: LF becomes CRLF in a CRLF file. */
export function withLineEndings(text: string, eol: TextFormat["eol"]): string {
  if (eol === "lf" || !text.includes("\n")) return text;
  return text.replace(/\r?\n/g, "\r\n");
}

export function countOf(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}
