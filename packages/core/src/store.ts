import { createHash } from "node:crypto";
import { BridleError } from "./errors.js";
import type { RunEvent, RunEventType, StoreDamageEvent } from "./events.js";
import { closeDanglingCalls } from "./history.js";
import { type Message, textOf } from "./messages.js";
import type { EventSink } from "./run-context.js";
import { projectTranscript } from "./transcript.js";

/** A session as a store lists it. */
export interface SessionInfo {
  readonly id: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Sequence number of the last event, inherited ones included; -1 when the session is empty. */
  readonly lastSeq: number;
  readonly title?: string;
  /** Set on a fork: the session and sequence it branched from. */
  readonly parent?: { readonly sessionId: string; readonly seq: number };
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/**
 * What a store found wrong while reading one entry back. `unreadable`: the entry itself could not be read,
 * and its event is a `store_damage` placeholder. `blob_missing` / `blob_mismatch`: a large output the
 * entry references is gone, or no longer matches its hash; that text is replaced by a placeholder naming
 * the blob, the rest of the entry is intact. `stray_lines`: the entry is intact, but unreadable data that
 * stands for no entry lies just before it.
 */
export interface StoreDamage {
  readonly kind: "unreadable" | "blob_missing" | "blob_mismatch" | "stray_lines";
  /** For people: what is wrong and where (file and line, or table and row). */
  readonly message: string;
}

/** An event as stored: the run's event plus the session's gapless sequence number. */
export interface StoredEvent {
  readonly sessionSeq: number;
  readonly event: RunEvent;
  /** Set when the store could not restore this entry exactly (never dropped silently: show it). */
  readonly damage?: StoreDamage;
}

/** One search result. Results come best first; `score` only compares hits of the same search. */
export interface SearchHit {
  readonly sessionId: string;
  readonly sessionSeq: number;
  readonly eventType: RunEventType;
  /** Text around the first match, matched terms in [brackets], at most about 200 characters. */
  readonly snippet: string;
  /** Higher is better. */
  readonly score: number;
}

export interface CreateSessionOptions {
  /** Letters, digits, `-` and `_`, at most 128 characters; a random UUID when omitted. */
  readonly id?: string;
  readonly title?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface ForkOptions {
  readonly id?: string;
  readonly title?: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface SearchOptions {
  /** At most this many hits (default 20). */
  readonly limit?: number;
  /** Only this session's own events (a fork's inherited events belong to its parent). */
  readonly sessionId?: string;
}

/**
 * Where runs are recorded. Every implementation passes the conformance suite in `@bridle/testing`.
 *
 * - `append` gives events gapless per-session sequence numbers, in order, and resolves only once the
 *   batch is recorded as durably as the store was configured to; a batch is all-or-nothing.
 * - A fork shares its parent's history up to and including the branch point; neither session's later
 *   appends are visible to the other, and the parent's history is never rewritten.
 * - `search` finds message text (prompts, assistant text, tool call arguments, tool output, compaction
 *   summaries) across sessions: every query term must match the start of a word, case-insensitively.
 * - Unknown sessions fail with `BridleError` code `not_found`, a taken id or a session another writer
 *   holds with `store_conflict`, a malformed id or sequence with `invalid_argument`.
 * - Damage found while reading (an entry that does not parse, a blob missing or not matching its hash) is
 *   reported in place, in the entry's `damage`, and costs only that entry: the rest of the session loads.
 */
export interface SessionStore {
  createSession(options?: CreateSessionOptions): Promise<SessionInfo>;
  /** Append events in order; returns the sequence numbers they were given (an empty batch changes nothing). */
  append(
    sessionId: string,
    events: readonly RunEvent[],
  ): Promise<{ readonly firstSeq: number; readonly lastSeq: number }>;
  /** Events from `fromSeq` (inclusive, default 0), including those inherited from a fork's parent. */
  read(sessionId: string, fromSeq?: number): AsyncIterable<StoredEvent>;
  get(sessionId: string): Promise<SessionInfo | undefined>;
  /** Sessions, most recently updated first. */
  list(options?: { readonly limit?: number }): Promise<readonly SessionInfo[]>;
  /** A new session sharing `sessionId`'s events up to and including `atSeq` (-1: none of them). */
  fork(sessionId: string, atSeq: number, options?: ForkOptions): Promise<SessionInfo>;
  search(query: string, options?: SearchOptions): Promise<readonly SearchHit[]>;
  /**
   * Optional: whether a process that is still alive has the session open for writing (this one
   * included), so a viewer says "live" only while the session's process runs. Stores that cannot tell
   * leave it out.
   */
  writing?(sessionId: string): Promise<boolean>;
  close(): Promise<void>;
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Throws `invalid_argument` unless `id` is a usable session id (it names files in some stores). */
export function assertSessionId(id: string): void {
  if (typeof id !== "string" || !SESSION_ID.test(id)) {
    throw new BridleError(
      "invalid_argument",
      `invalid session id ${JSON.stringify(String(id).slice(0, 140))}: use 1-128 letters, digits, "-" or "_"`,
    );
  }
}

/** Throws `invalid_argument` unless a session whose last event is `lastSeq` can be forked at `atSeq`. */
export function assertForkPoint(sessionId: string, lastSeq: number, atSeq: number): void {
  if (!Number.isInteger(atSeq) || atSeq < -1 || atSeq > lastSeq) {
    throw new BridleError(
      "invalid_argument",
      `cannot fork "${sessionId}" at ${atSeq}: its events run from 0 to ${lastSeq} (-1 forks before the first)`,
    );
  }
}

/**
 * A sink that records a run into a session. Streaming deltas and progress are held back and written
 * with the next event that matters, so a run costs one durable append per step rather than one per token,
 * and everything is recorded before a tool call executes (the harness awaits the sink there). Events the
 * run emits together arrive as one batch and are written in one append.
 */
export function sessionSink(store: SessionStore, sessionId: string): EventSink & { flush(): Promise<void> } {
  let pending: RunEvent[] = [];
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    await store.append(sessionId, batch);
  };
  const heldBack = (event: RunEvent): boolean =>
    event.type === "text_delta" ||
    event.type === "reasoning_delta" ||
    event.type === "tool_call_delta" ||
    event.type === "tool_progress";
  return {
    async write(event: RunEvent): Promise<void> {
      pending.push(event);
      if (heldBack(event) && pending.length < 256) return;
      await flush();
    },
    async writeBatch(events: readonly RunEvent[]): Promise<void> {
      pending.push(...events);
      if (events.every(heldBack) && pending.length < 256) return;
      await flush();
    },
    flush,
  };
}

/**
 * The conversation a session holds, ready to pass as `history` when resuming it. A tool call that never got
 * a result (the process died while it ran) gets a `Cancelled` one, so the thread stays valid for providers.
 * Entries the store found damaged are given to `onDamage` as they are read (show them: a damaged entry's
 * message is missing from, or a placeholder in, the transcript).
 */
export async function sessionTranscript(
  store: SessionStore,
  sessionId: string,
  options: { readonly onDamage?: (stored: StoredEvent & { readonly damage: StoreDamage }) => void } = {},
): Promise<Message[]> {
  const events: RunEvent[] = [];
  for await (const stored of store.read(sessionId)) {
    if (stored.damage) options.onDamage?.({ ...stored, damage: stored.damage });
    events.push(stored.event);
  }
  return [...closeDanglingCalls(projectTranscript(events))];
}

/** The text `search` looks in for one event, or undefined when the event carries none. */
export function searchableText(event: RunEvent): string | undefined {
  switch (event.type) {
    case "run_started":
      return event.messages.map(messageText).join("\n") || undefined;
    case "model_response":
      return messageText(event.message) || undefined;
    case "tool_call_completed":
      return messageText(event.result) || undefined;
    case "compaction":
      return messageText(event.summary) || undefined;
    case "user_message_delivered":
      return messageText(event.message) || undefined;
    default:
      return undefined;
  }
}

function messageText(message: Message): string {
  if (message.role === "system") return message.content;
  if (message.role !== "assistant") return textOf(message.content);
  const parts: string[] = [];
  for (const part of message.content) {
    if (part.type === "text") parts.push(part.text);
    else if (part.type === "tool_call") parts.push(`${part.name} ${part.arguments}`);
  }
  return parts.join("\n");
}

/** Strings at least this long inside tool output are stored once, by content hash (16 KiB of text). */
export const DEFAULT_BLOB_THRESHOLD = 16_384;

/** An event as a store writes it: large strings replaced by `{ $blob: sha256 }` references. */
export interface EventRecord {
  readonly event: unknown;
  /** The blobs the record references, by sha256 hex; empty when the event is stored whole. */
  readonly blobs: ReadonlyMap<string, string>;
}

/**
 * Splits large tool outputs out of an event so a store keeps each distinct output once, by content hash,
 * and the record only references it. Only tool results and progress are split: they are where large,
 * repeated text appears. Events that already contain a `$blob` key are stored whole, so restoring is exact.
 */
export function toEventRecord(event: RunEvent, threshold = DEFAULT_BLOB_THRESHOLD): EventRecord {
  if (event.type !== "tool_call_completed" && event.type !== "tool_progress") {
    return { event, blobs: new Map() };
  }
  if (!hasLongString(event, threshold) || hasBlobKey(event)) return { event, blobs: new Map() };
  const blobs = new Map<string, string>();
  const split = (value: unknown): unknown => {
    if (typeof value === "string") {
      if (value.length < threshold) return value;
      const hash = createHash("sha256").update(value).digest("hex");
      blobs.set(hash, value);
      return { $blob: hash };
    }
    if (Array.isArray(value)) return value.map(split);
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) out[key] = split(inner);
      return out;
    }
    return value;
  };
  return { event: split(event), blobs };
}

/** An event read back from its record, and what could not be restored of it. */
export interface RestoredEvent {
  readonly event: RunEvent;
  readonly damage?: StoreDamage;
}

const BLOB_HASH = /^[0-9a-f]{64}$/;

/**
 * The event a record describes, with each `{ $blob }` reference replaced by its text, checked against its
 * hash: a blob `lookup` does not find (undefined), or whose text does not hash to its name, becomes a
 * placeholder naming it, reported in `damage`; the rest of the event is restored. `lookup` is only asked
 * for well-formed sha256 names, so a reference cannot name a path.
 */
export function fromEventRecord(
  record: unknown,
  lookup: (hash: string) => string | undefined,
): RestoredEvent {
  const missing: string[] = [];
  const altered: string[] = [];
  const restore = (hash: string): string => {
    const text = BLOB_HASH.test(hash) ? lookup(hash) : undefined;
    if (text === undefined) {
      missing.push(hash);
      return `[bridle: this output was stored as blob ${hash.slice(0, 80)}, which is missing from the session store]`;
    }
    if (createHash("sha256").update(text).digest("hex") !== hash) {
      altered.push(hash);
      return `[bridle: this output was stored as blob ${hash}, whose content no longer matches its hash (altered or corrupted); it is not shown]`;
    }
    return text;
  };
  const join = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(join);
    if (value !== null && typeof value === "object") {
      const hash = (value as { $blob?: unknown }).$blob;
      if (typeof hash === "string" && Object.keys(value).length === 1) return restore(hash);
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) out[key] = join(inner);
      return out;
    }
    return value;
  };
  const event = join(record) as RunEvent;
  if (missing.length === 0 && altered.length === 0) return { event };
  const problems = [
    missing.length > 0 ? `blob ${missing.join(", ")} missing` : "",
    altered.length > 0 ? `blob ${altered.join(", ")} does not match its hash` : "",
  ].filter(Boolean);
  return {
    event,
    damage: {
      kind: missing.length > 0 ? "blob_missing" : "blob_mismatch",
      message: `${problems.join("; ")}: that output is replaced by a placeholder`,
    },
  };
}

/** The placeholder a store yields for an entry it cannot read: `neighbour` lends its run id and time. */
export function storeDamageEvent(message: string, neighbour: RunEvent | undefined): StoreDamageEvent {
  return {
    type: "store_damage",
    runId: neighbour?.runId ?? "",
    seq: -1,
    time: neighbour?.time ?? 0,
    ...(neighbour?.sessionId === undefined ? {} : { sessionId: neighbour.sessionId }),
    message,
  };
}

function hasLongString(value: unknown, threshold: number): boolean {
  if (typeof value === "string") return value.length >= threshold;
  if (Array.isArray(value)) return value.some((inner) => hasLongString(inner, threshold));
  if (value !== null && typeof value === "object") {
    return Object.values(value).some((inner) => hasLongString(inner, threshold));
  }
  return false;
}

function hasBlobKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasBlobKey);
  if (value !== null && typeof value === "object") {
    if (Object.hasOwn(value, "$blob")) return true;
    return Object.values(value).some(hasBlobKey);
  }
  return false;
}

/** The terms of a search query: lowercased runs of letters and digits (how SQLite's FTS5 splits words). */
export function searchTerms(query: string): string[] {
  return query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((term) => term.length > 0)
    .slice(0, 32);
}
