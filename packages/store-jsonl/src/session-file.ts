import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import { BridleError } from "@bridle/core";

/** Version of the line format; a header with a newer one is refused rather than misread. */
export const FORMAT = 1;

/** The first line of a session file. */
export interface SessionHeader {
  readonly kind: "session";
  readonly format: number;
  readonly id: string;
  readonly createdAt: number;
  readonly title?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly parent?: { readonly sessionId: string; readonly seq: number };
}

/**
 * Every later line: one event. `parent` names the entry it follows as "<session>:<seq>" (null for a root's
 * first event), so a fork's first entry points into its parent's file and the sessions form a tree.
 */
export interface EntryLine {
  readonly seq: number;
  readonly parent: string | null;
  readonly blobs?: readonly string[];
  readonly event: unknown;
}

/** Hex digits of the checksum a line ends with: 64 bits of its sha256, enough to catch corruption. */
const SUM_DIGITS = 16;
const SUM_SUFFIX = /,"sum":"([0-9a-f]{16})"\}$/;

function sumOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, SUM_DIGITS);
}

/**
 * An entry as one line, ending with a checksum of the rest: most bytes of a line are inside strings, where
 * a flipped bit still parses, so without it corruption would load as different content. Readers that
 * predate it ignore the key; lines written before it have none and load unchecked.
 */
export function entryLine(entry: EntryLine): string {
  const body = JSON.stringify(entry);
  return `${body.slice(0, -1)},"sum":"${sumOf(body)}"}`;
}

export function entryId(sessionId: string, seq: number): string {
  return `${sessionId}:${seq}`;
}

/**
 * Parses one line; undefined for a line that is not a whole, self-consistent entry (torn, corrupted, or
 * foreign): its checksum, when it has one, must match. Its sequence number must agree with the entry it says it follows, so a flipped digit in either
 * makes the line damaged rather than a jump in the session.
 */
export function parseEntry(line: string): EntryLine | undefined {
  if (!line.startsWith('{"seq":')) return undefined;
  const sum = SUM_SUFFIX.exec(line);
  if (sum && sumOf(`${line.slice(0, sum.index)}}`) !== sum[1]) return undefined;
  let value: Partial<EntryLine> & { sum?: unknown };
  try {
    value = JSON.parse(line) as Partial<EntryLine>;
  } catch {
    return undefined;
  }
  // A "sum" key that is not a well-formed checksum at the end is a damaged one.
  if (!sum && Object.hasOwn(value, "sum")) return undefined;
  const { seq, parent, event, blobs } = value;
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 0) return undefined;
  if (typeof event !== "object" || event === null || Array.isArray(event)) return undefined;
  if (typeof (event as { type?: unknown }).type !== "string") return undefined;
  if (blobs !== undefined && !(Array.isArray(blobs) && blobs.every((hash) => typeof hash === "string"))) {
    return undefined;
  }
  const follows = parent === null ? seq === 0 : typeof parent === "string" && parent.endsWith(`:${seq - 1}`);
  return follows ? (value as EntryLine) : undefined;
}

/** The sequence number a line claims, read without parsing the whole line. */
export function seqOfLine(line: string): number | undefined {
  const match = /^\{"seq":(\d+),/.exec(line);
  return match ? Number(match[1]) : undefined;
}

export function parseHeader(line: string, path: string): SessionHeader {
  let value: Partial<SessionHeader>;
  try {
    value = JSON.parse(line) as Partial<SessionHeader>;
  } catch {
    throw new BridleError("store_corrupt", `${path}: the session header is not valid JSON`);
  }
  if (value.kind !== "session" || typeof value.id !== "string" || typeof value.createdAt !== "number") {
    throw new BridleError("store_corrupt", `${path}: the first line is not a session header`);
  }
  if (typeof value.format !== "number" || value.format > FORMAT) {
    throw new BridleError(
      "store_corrupt",
      `${path}: written in format ${String(value.format)}, newer than this store reads (${FORMAT})`,
    );
  }
  return value as SessionHeader;
}

const CHUNK = 1 << 20;

/** One line of a file; `terminated` is false only for a last line with no newline after it. */
export interface FileLine {
  readonly text: string;
  readonly terminated: boolean;
}

/**
 * The lines of a file from `start`, as they are on disk: complete lines, then the unterminated tail if
 * any (a torn write, or a complete line whose newline never made it: the caller's parser decides).
 */
export async function* linesOf(path: string, start = 0): AsyncGenerator<FileLine> {
  const handle = await open(path, "r");
  try {
    // Most session files are small: size the buffer to the file, not to the largest chunk.
    const { size } = await handle.stat();
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, size - start)));
    let position = start;
    let carry: Buffer[] = [];
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let from = 0;
      for (;;) {
        const newline = buffer.indexOf(10, from);
        if (newline < 0 || newline >= bytesRead) break;
        const piece = buffer.subarray(from, newline);
        if (carry.length > 0) {
          carry.push(piece);
          yield { text: Buffer.concat(carry).toString("utf8"), terminated: true };
          carry = [];
        } else {
          yield { text: piece.toString("utf8"), terminated: true };
        }
        from = newline + 1;
      }
      if (from < bytesRead) carry.push(Buffer.from(buffer.subarray(from, bytesRead)));
    }
    if (carry.length > 0) yield { text: Buffer.concat(carry).toString("utf8"), terminated: false };
  } finally {
    await handle.close();
  }
}

/** The header line of a session file. */
export async function readHeader(path: string): Promise<{ header: SessionHeader; bytes: number }> {
  for await (const line of linesOf(path)) {
    return { header: parseHeader(line.text, path), bytes: Buffer.byteLength(line.text) + 1 };
  }
  throw new BridleError("store_corrupt", `${path}: the session file is empty`);
}

/** Where the last entry is: its sequence number and the offset where the whole lines of the file end. */
export interface Tail {
  /** The last good entry's sequence number; undefined when the file holds none. */
  readonly lastSeq: number | undefined;
  /**
   * Whole lines after the last good entry that do not parse: damaged entries that were written (each
   * took a sequence number), unlike a torn unterminated tail, which never was.
   */
  readonly damagedAfter: number;
  /** Offset just past the last whole line (its newline included when it has one). */
  readonly goodEnd: number;
  /** The last good line has no newline after it (it must get one before anything is appended). */
  readonly unterminated: boolean;
}

/**
 * Finds the last good line by reading backwards from the end, so opening a long session costs one small
 * read. An unterminated fragment at the very end is a torn write from a crash; a whole line that does not
 * parse is damage, kept in place and counted.
 */
export async function readTail(handle: FileHandle, size: number, headerBytes: number): Promise<Tail> {
  let window = 64 * 1024;
  for (;;) {
    const start = Math.max(headerBytes, size - window);
    const length = size - start;
    const buffer = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(buffer, read, length - read, start + read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    let end = read;
    let wholeEnd: number | undefined;
    let damagedAfter = 0;
    while (end > 0) {
      const newline = buffer.lastIndexOf(10, end - 1);
      // A line cut by the window's start is not trusted; widen the window instead.
      if (newline < 0 && start > headerBytes) break;
      const terminated = end < read;
      const entry = parseEntry(buffer.subarray(newline + 1, end).toString("utf8"));
      if (entry) {
        return {
          lastSeq: entry.seq,
          damagedAfter,
          goodEnd: start + (wholeEnd ?? end + (terminated ? 1 : 0)),
          unterminated: wholeEnd === undefined && !terminated,
        };
      }
      if (terminated) {
        wholeEnd ??= end + 1;
        damagedAfter++;
      }
      end = newline;
    }
    if (start <= headerBytes) {
      return { lastSeq: undefined, damagedAfter, goodEnd: start + (wholeEnd ?? 0), unterminated: false };
    }
    window *= 4;
  }
}
