import type { RunEvent } from "./events.js";

/** A session as a store lists it. */
export interface SessionInfo {
  readonly id: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Sequence number of the last event, -1 when the session is empty. */
  readonly lastSeq: number;
  readonly title?: string;
  /** Set on a fork: the session and sequence it branched from. */
  readonly parent?: { readonly sessionId: string; readonly seq: number };
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** An event as stored: the run's event plus the session's gapless sequence number. */
export interface StoredEvent {
  readonly sessionSeq: number;
  readonly event: RunEvent;
}

export interface SearchHit {
  readonly sessionId: string;
  readonly sessionSeq: number;
  readonly snippet: string;
}

/**
 * Where runs are recorded. Appends get gapless per-session sequence numbers; a fork shares the history
 * before its branch point; search finds message text across sessions. `@bridle/testing` has the
 * conformance suite every implementation passes.
 */
export interface SessionStore {
  createSession(options?: {
    readonly id?: string;
    readonly title?: string;
    readonly metadata?: Readonly<Record<string, unknown>>;
  }): Promise<SessionInfo>;
  /** Append events in order; returns the sequence numbers they were given. */
  append(
    sessionId: string,
    events: readonly RunEvent[],
  ): Promise<{ readonly firstSeq: number; readonly lastSeq: number }>;
  /** Events from `fromSeq` (inclusive, default 0), including those inherited from a fork's parent. */
  read(sessionId: string, fromSeq?: number): AsyncIterable<StoredEvent>;
  get(sessionId: string): Promise<SessionInfo | undefined>;
  list(): Promise<readonly SessionInfo[]>;
  /** A new session sharing `sessionId`'s events up to and including `atSeq`. */
  fork(
    sessionId: string,
    atSeq: number,
    options?: { readonly id?: string; readonly title?: string },
  ): Promise<SessionInfo>;
  search(
    query: string,
    options?: { readonly limit?: number; readonly sessionId?: string },
  ): Promise<readonly SearchHit[]>;
  close(): Promise<void>;
}
