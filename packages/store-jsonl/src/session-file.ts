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

export function entryId(sessionId: string, seq: number): string {
  return `${sessionId}:${seq}`;
}

/** Parses one line; undefined for a torn or foreign line, which loaders skip rather than fail on. */
export function parseEntry(line: string): EntryLine | undefined {
  if (!line.startsWith('{"seq":')) return undefined;
  try {
    const value = JSON.parse(line) as Partial<EntryLine>;
    if (typeof value.seq !== "number" || typeof value.event !== "object" || value.event === null) {
      return undefined;
    }
    return value as EntryLine;
  } catch {
    return undefined;
  }
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

/**
 * The lines of a file from `start`, as they are on disk: complete lines, then the unterminated tail if
 * any (a torn write, or a complete line whose newline never made it: the caller's parser decides).
 */
export async function* linesOf(path: string, start = 0): AsyncGenerator<string> {
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
          yield Buffer.concat(carry).toString("utf8");
          carry = [];
        } else {
          yield piece.toString("utf8");
        }
        from = newline + 1;
      }
      if (from < bytesRead) carry.push(Buffer.from(buffer.subarray(from, bytesRead)));
    }
    if (carry.length > 0) yield Buffer.concat(carry).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** The header line of a session file. */
export async function readHeader(path: string): Promise<{ header: SessionHeader; bytes: number }> {
  for await (const line of linesOf(path)) {
    return { header: parseHeader(line, path), bytes: Buffer.byteLength(line) + 1 };
  }
  throw new BridleError("store_corrupt", `${path}: the session file is empty`);
}

/** Where the last good entry is: its sequence number and the offset where the good part of the file ends. */
export interface Tail {
  /** Undefined when the file holds no good entry. */
  readonly lastSeq: number | undefined;
  /** Offset just past the last good line (its newline included when it has one). */
  readonly goodEnd: number;
  /** The last good line has no newline after it (it must get one before anything is appended). */
  readonly unterminated: boolean;
}

/**
 * Finds the last good line by reading backwards from the end, so opening a long session costs one small
 * read. Whatever follows that line is a torn write from a crash.
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
    while (end > 0) {
      const newline = end > 0 ? buffer.lastIndexOf(10, end - 1) : -1;
      // A line cut by the window's start is not trusted; widen the window instead.
      if (newline < 0 && start > headerBytes) break;
      const line = buffer.subarray(newline + 1, end).toString("utf8");
      const entry = parseEntry(line);
      if (entry) {
        const terminated = end < read;
        return { lastSeq: entry.seq, goodEnd: start + end + (terminated ? 1 : 0), unterminated: !terminated };
      }
      end = newline;
    }
    if (start <= headerBytes) return { lastSeq: undefined, goodEnd: headerBytes, unterminated: false };
    window *= 4;
  }
}
