import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import {
  assertForkPoint,
  assertSessionId,
  BridleError,
  type CreateSessionOptions,
  DEFAULT_BLOB_THRESHOLD,
  type ForkOptions,
  fromEventRecord,
  type RunEvent,
  type RunEventType,
  type SearchHit,
  type SearchOptions,
  type SessionInfo,
  type SessionStore,
  type StoredEvent,
  searchableText,
  searchTerms,
  storeDamageEvent,
  toEventRecord,
} from "@bridle/core";
import { migrate } from "./migrations.js";

/**
 * When an append counts as done (SQLite's `synchronous` setting under WAL).
 * - "append": FULL, the WAL is fsynced at every commit: an acknowledged append survives power loss (default).
 * - "batch": NORMAL, fsynced at checkpoints: survives the process dying; power loss may cost the last commits.
 * - "none": OFF, never fsynced by SQLite.
 */
export type SqliteDurability = "append" | "batch" | "none";

export interface SqliteStoreOptions {
  /** The database file (created with its schema when missing). */
  readonly path: string;
  readonly durability?: SqliteDurability;
  /** Strings in tool output at least this long are stored once as blobs (default 16 KiB). */
  readonly blobThreshold?: number;
  /** How long a writer waits for another process's transaction (default 5000 ms). */
  readonly busyTimeoutMs?: number;
}

interface SessionRow {
  id: string;
  created_at: number;
  updated_at: number;
  last_seq: number;
  title: string | null;
  metadata: string | null;
  parent_id: string | null;
  parent_seq: number | null;
}

const PAGE = 1000;

/**
 * A session store in one SQLite database (node:sqlite, no native build): WAL journaling, one transaction per
 * appended batch, an FTS5 index over message text, and a versioned schema. Several processes may share the
 * file; their appends are serialized by SQLite's write lock.
 */
export class SqliteSessionStore implements SessionStore {
  readonly path: string;
  readonly durability: SqliteDurability;
  readonly schemaVersion: number;
  readonly #db: DatabaseSync;
  readonly #threshold: number;
  readonly #sql: {
    session: StatementSync;
    insertSession: StatementSync;
    insertEvent: StatementSync;
    insertText: StatementSync;
    insertBlob: StatementSync;
    blob: StatementSync;
    advance: StatementSync;
    page: StatementSync;
  };
  #closed = false;

  private constructor(options: SqliteStoreOptions) {
    this.path = options.path;
    this.durability = options.durability ?? "append";
    this.#threshold = options.blobThreshold ?? DEFAULT_BLOB_THRESHOLD;
    this.#db = new DatabaseSync(options.path, {
      timeout: options.busyTimeoutMs ?? 5000,
      enableForeignKeyConstraints: true,
    });
    this.#db.exec("PRAGMA journal_mode = WAL");
    const synchronous = { append: "FULL", batch: "NORMAL", none: "OFF" }[this.durability];
    this.#db.exec(`PRAGMA synchronous = ${synchronous}`);
    this.schemaVersion = migrate(this.#db, options.path);
    const db = this.#db;
    this.#sql = {
      session: db.prepare("SELECT * FROM sessions WHERE id = ?"),
      insertSession: db.prepare(
        `INSERT INTO sessions (id, created_at, updated_at, last_seq, title, metadata, parent_id, parent_seq)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertEvent: db.prepare(
        "INSERT INTO events (session_id, seq, type, body, has_blobs) VALUES (?, ?, ?, ?, ?)",
      ),
      insertText: db.prepare("INSERT INTO event_text (rowid, text) VALUES (?, ?)"),
      // A stored copy that no longer matches its hash is damaged: writing the same content repairs it.
      insertBlob: db.prepare(
        "INSERT INTO blobs (hash, content) VALUES (?, ?) ON CONFLICT (hash) DO UPDATE SET content = excluded.content WHERE blobs.content IS NOT excluded.content",
      ),
      blob: db.prepare("SELECT content FROM blobs WHERE hash = ?"),
      advance: db.prepare("UPDATE sessions SET last_seq = ?, updated_at = ? WHERE id = ?"),
      page: db.prepare(
        "SELECT seq, body, has_blobs FROM events WHERE session_id = ? AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?",
      ),
    };
  }

  static async open(options: SqliteStoreOptions): Promise<SqliteSessionStore> {
    // A first run on a fresh machine has no data folder yet: make it, as the JSONL store makes its own.
    if (options.path !== ":memory:" && !options.path.startsWith("file:"))
      await mkdir(dirname(options.path), { recursive: true, mode: 0o700 });
    return new SqliteSessionStore(options);
  }

  async createSession(options: CreateSessionOptions = {}): Promise<SessionInfo> {
    return this.#create(options, undefined);
  }

  async fork(sessionId: string, atSeq: number, options: ForkOptions = {}): Promise<SessionInfo> {
    const parent = this.#require(sessionId);
    assertForkPoint(sessionId, parent.last_seq, atSeq);
    return this.#create(options, { sessionId, seq: atSeq });
  }

  async append(
    sessionId: string,
    events: readonly RunEvent[],
  ): Promise<{ readonly firstSeq: number; readonly lastSeq: number }> {
    this.#assertOpen();
    assertSessionId(sessionId);
    return this.#transaction(() => {
      const row = this.#require(sessionId);
      const firstSeq = row.last_seq + 1;
      if (events.length === 0) return { firstSeq, lastSeq: row.last_seq };
      let seq = row.last_seq;
      for (const event of events) {
        seq++;
        const record = toEventRecord(event, this.#threshold);
        for (const [hash, text] of record.blobs) this.#sql.insertBlob.run(hash, text);
        const { lastInsertRowid } = this.#sql.insertEvent.run(
          sessionId,
          seq,
          event.type,
          JSON.stringify(record.event),
          record.blobs.size > 0 ? 1 : 0,
        );
        const text = searchableText(event);
        if (text !== undefined) this.#sql.insertText.run(lastInsertRowid, text);
      }
      this.#sql.advance.run(seq, Date.now(), sessionId);
      return { firstSeq, lastSeq: seq };
    });
  }

  async *read(sessionId: string, fromSeq = 0): AsyncGenerator<StoredEvent> {
    this.#assertOpen();
    assertSessionId(sessionId);
    yield* this.#readUpTo(this.#require(sessionId), fromSeq, Number.MAX_SAFE_INTEGER);
  }

  async get(sessionId: string): Promise<SessionInfo | undefined> {
    this.#assertOpen();
    assertSessionId(sessionId);
    const row = this.#sql.session.get(sessionId) as SessionRow | undefined;
    return row ? toInfo(row) : undefined;
  }

  async list(options: { readonly limit?: number } = {}): Promise<readonly SessionInfo[]> {
    this.#assertOpen();
    const limit = options.limit === undefined ? -1 : Math.max(0, Math.floor(options.limit));
    const rows = this.#db
      .prepare("SELECT * FROM sessions ORDER BY updated_at DESC, created_at DESC LIMIT ?")
      .all(limit) as unknown as SessionRow[];
    return rows.map(toInfo);
  }

  async search(query: string, options: SearchOptions = {}): Promise<readonly SearchHit[]> {
    this.#assertOpen();
    const terms = searchTerms(query);
    const limit = Math.max(0, Math.min(options.limit ?? 20, 1000));
    if (options.sessionId !== undefined) {
      assertSessionId(options.sessionId);
      this.#require(options.sessionId);
    }
    if (terms.length === 0 || limit === 0) return [];
    // Each term quoted (it is only letters and digits) and prefix-matched; FTS5 ANDs them.
    const match = terms.map((term) => `"${term}"*`).join(" ");
    const filter = options.sessionId === undefined ? "" : "AND e.session_id = ?";
    const rows = this.#db
      .prepare(
        `SELECT e.session_id AS sessionId, e.seq AS sessionSeq, e.type AS eventType,
                bm25(event_text) AS rank, snippet(event_text, 0, '[', ']', '…', 24) AS snippet
         FROM event_text JOIN events e ON e.id = event_text.rowid
         WHERE event_text MATCH ? ${filter}
         ORDER BY rank, e.seq LIMIT ?`,
      )
      .all(
        ...(options.sessionId === undefined ? [match, limit] : [match, options.sessionId, limit]),
      ) as unknown as {
      sessionId: string;
      sessionSeq: number;
      eventType: RunEventType;
      rank: number;
      snippet: string;
    }[];
    return rows.map(({ rank, ...hit }) => ({
      ...hit,
      snippet: hit.snippet.replace(/\s+/g, " "),
      score: -rank,
    }));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  *#readUpTo(row: SessionRow, fromSeq: number, toSeq: number): Generator<StoredEvent> {
    if (row.parent_id !== null && row.parent_seq !== null && fromSeq <= row.parent_seq) {
      yield* this.#readUpTo(this.#require(row.parent_id), fromSeq, Math.min(toSeq, row.parent_seq));
    }
    let next = Math.max(fromSeq, row.parent_seq === null ? 0 : row.parent_seq + 1);
    let last: RunEvent | undefined;
    for (;;) {
      const page = this.#sql.page.all(row.id, next, toSeq, PAGE) as unknown as {
        seq: number;
        body: string;
        has_blobs: number;
      }[];
      for (const { seq, body, has_blobs } of page) {
        const parsed = parseBody(body);
        if (parsed === undefined) {
          // A row that no longer parses costs only itself: reported in its place, the rest loads.
          const message = `${this.path}: the event of session "${row.id}" at ${seq} is unreadable (not a JSON event)`;
          yield {
            sessionSeq: seq,
            event: storeDamageEvent(message, last),
            damage: { kind: "unreadable", message },
          };
          continue;
        }
        const restored = has_blobs
          ? fromEventRecord(parsed, (hash) => this.#blob(hash))
          : { event: parsed as unknown as RunEvent };
        last = restored.event;
        yield { sessionSeq: seq, ...restored };
      }
      if (page.length < PAGE) return;
      next = (page.at(-1)?.seq ?? next) + 1;
    }
  }

  /** The blob's text, or undefined when its row is gone (core checks the text against its hash). */
  #blob(hash: string): string | undefined {
    const row = this.#sql.blob.get(hash) as { content: unknown } | undefined;
    return typeof row?.content === "string" ? row.content : undefined;
  }

  #create(
    options: CreateSessionOptions,
    parent: { sessionId: string; seq: number } | undefined,
  ): SessionInfo {
    this.#assertOpen();
    const id = options.id ?? randomUUID();
    assertSessionId(id);
    const now = Date.now();
    return this.#transaction(() => {
      if (this.#sql.session.get(id))
        throw new BridleError("store_conflict", `session "${id}" already exists`);
      this.#sql.insertSession.run(
        id,
        now,
        now,
        parent ? parent.seq : -1,
        options.title ?? null,
        options.metadata === undefined ? null : JSON.stringify(options.metadata),
        parent?.sessionId ?? null,
        parent ? parent.seq : null,
      );
      return toInfo(this.#sql.session.get(id) as unknown as SessionRow);
    });
  }

  #require(sessionId: string): SessionRow {
    const row = this.#sql.session.get(sessionId) as SessionRow | undefined;
    if (!row) throw new BridleError("not_found", `no session "${sessionId}"`);
    return row;
  }

  #transaction<T>(work: () => T): T {
    // IMMEDIATE takes the write lock up front, so two processes never both read the same last_seq.
    this.#db.exec("BEGIN IMMEDIATE");
    let result: T;
    try {
      result = work();
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
    try {
      this.#db.exec("COMMIT");
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw new BridleError("store_write", `committing to ${this.path} failed`, { cause: error });
    }
    return result;
  }

  #assertOpen(): void {
    if (this.#closed) throw new BridleError("invalid_argument", "this session store is closed");
  }
}

function toInfo(row: SessionRow): SessionInfo {
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastSeq: row.last_seq,
    ...(row.title === null ? {} : { title: row.title }),
    ...(row.parent_id === null || row.parent_seq === null
      ? {}
      : { parent: { sessionId: row.parent_id, seq: row.parent_seq } }),
    ...(row.metadata === null ? {} : { metadata: JSON.parse(row.metadata) as Record<string, unknown> }),
  };
}

/** A stored event body, or undefined when it is not a JSON object with a type. */
function parseBody(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const value: unknown = JSON.parse(body);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    return typeof (value as { type?: unknown }).type === "string"
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
