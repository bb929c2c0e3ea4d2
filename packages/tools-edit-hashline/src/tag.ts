import { createRequire } from "node:module";

type Blake3 = typeof import("blake3-wasm");
let blake3: Blake3 | undefined;

// Required on the first tag, not at import: instantiating its WebAssembly takes some 20 ms, which a
// start (whose first request tags nothing) need not wait for. The package is CommonJS, so this stays
// synchronous.
function hash(input: string | Buffer, options: { length: number }): Buffer {
  blake3 ??= createRequire(import.meta.url)("blake3-wasm") as Blake3;
  return blake3.hash(input, options) as Buffer;
}

/** How a file's bytes became text: UTF-8 when they are valid UTF-8, else Latin-1 (one char per byte). */
export type TextEncodingName = "utf8" | "latin1";

const TAG_BYTES = 4;

/**
 * The tag of one line: the first 8 hex characters of blake3(`<line number>:<text>`), hashed over the
 * line's bytes as they are on disk. BLAKE3 is an extendable-output hash, so asking for 4 bytes gives the
 * same prefix as the full 32-byte digest, without the larger buffer.
 */
export function lineTag(lineNumber: number, text: string, encoding: TextEncodingName = "utf8"): string {
  const input =
    encoding === "utf8" ? `${lineNumber}:${text}` : Buffer.from(`${lineNumber}:${text}`, "latin1");
  const digest = hash(input, { length: TAG_BYTES });
  // A table lookup per byte: cheaper than Buffer#toString("hex") for four bytes, called once per line.
  return (
    (HEX[digest[0] as number] as string) +
    (HEX[digest[1] as number] as string) +
    (HEX[digest[2] as number] as string) +
    (HEX[digest[3] as number] as string)
  );
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** One line as the model sees it: the number right-aligned to 4, the tag, a bar, the text. */
export function hashline(lineNumber: number, tag: string, text: string): string {
  return `${String(lineNumber).padStart(4)} ${tag} | ${text}`;
}

const TAG_PATTERN = /^[0-9a-f]{8}$/;
// What a model sometimes sends instead of a bare tag: the whole prefix of a hashline, with or without text.

const ECHOED_PREFIX = /^\s*(?:(\d+)\s+)?([0-9a-fA-F]{8})\s*(?:\|.*)?$/s;

/** A tag as the model sent it: the bare tag, and the line number it wrote in front, if any. */
export interface TagRef {
  readonly tag: string;
  readonly line: number | undefined;
}

/** The tag (and any line number) in what the model sent, or undefined when it holds no tag. */
export function parseTagRef(value: string): TagRef | undefined {
  const trimmed = value.trim();
  if (TAG_PATTERN.test(trimmed)) return { tag: trimmed, line: undefined };
  const match = ECHOED_PREFIX.exec(value);
  if (!match) return undefined;
  return {
    tag: (match[2] as string).toLowerCase(),
    line: match[1] === undefined ? undefined : Number(match[1]),
  };
}

/** The bare tag in what the model sent, or undefined when it holds none. */
export function normalizeTag(value: string): string | undefined {
  return parseTagRef(value)?.tag;
}
