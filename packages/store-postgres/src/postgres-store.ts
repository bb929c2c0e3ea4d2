import { randomUUID } from "node:crypto";
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
import pg from "pg";
import { migrate } from "./migrations.js";
import { snippetOf, tsqueryLiteral, tsvectorLiteral } from "./search-text.js";

export interface PostgresStoreOptions {
  /** A `postgres://` URL; the store makes its own pool of up to `max` connections and ends it on close. */
  readonly connectionString?: string;
  /** Or a pool the caller owns (sized and ended by the caller; `max` is ignored). */
  readonly pool?: pg.Pool;
  /** Connections in the store's own pool (default 10). */
  readonly max?: number;
  /** The Postgres schema holding the store's tables, created when missing (default `bridle`). */
  readonly schema?: string;
  /** Strings in tool output at least this long are stored once as blobs (default 16 KiB). */
  readonly blobThreshold?: number;
}

interface SessionRow {
  id: string;
  created_at: string;
  updated_at: string;
  last_seq: string;
  title: string | null;
  metadata: string | null;
  parent_id: string | null;
  parent_seq: string | null;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const PAGE = 1000;

/**
 * A session store in a Postgres database (node-postgres): one transaction per appended batch, a row lock on
 * the session so any number of writer processes append gaplessly, a tsvector index ranked by `ts_rank`,
 * large outputs stored once by hash, and a versioned schema migrated under an advisory lock.
 */
export class PostgresSessionStore implements SessionStore {
  readonly schema: string;
  readonly schemaVersion: number;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #threshold: number;
  readonly #t: { sessions: string; events: string; blobs: string };
  #closed = false;

  private constructor(pool: pg.Pool, ownsPool: boolean, schema: string, version: number, threshold: number) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.schema = schema;
    this.schemaVersion = version;
    this.#threshold = threshold;
    this.#t = { sessions: `"${schema}".sessions`, events: `"${schema}".events`, blobs: `"${schema}".blobs` };
  }

  static async open(options: PostgresStoreOptions): Promise<PostgresSessionStore> {
    const schema = options.schema ?? "bridle";
    if (!SCHEMA_NAME.test(schema)) {
      throw new BridleError(
        "invalid_argument",
        `invalid schema name ${JSON.stringify(schema.slice(0, 80))}: use lowercase letters, digits and "_"`,
      );
    }
    if ((options.pool === undefined) === (options.connectionString === undefined)) {
      throw new BridleError(
        "invalid_argument",
        "PostgresSessionStore.open needs one of connectionString or pool",
      );
    }
    const max = options.max ?? 10;
    if (!Number.isInteger(max) || max < 1) {
      throw new BridleError("invalid_argument", `max must be a positive integer, got ${String(max)}`);
    }
    const ownsPool = options.pool === undefined;
    const pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max });
    // An idle connection the server drops must not crash the process: the next query reports it.
    if (ownsPool) pool.on("error", () => {});
    try {
      const version = await migrate(pool, schema);
      return new PostgresSessionStore(
        pool,
        ownsPool,
        schema,
        version,
        options.blobThreshold ?? DEFAULT_BLOB_THRESHOLD,
      );
    } catch (error) {
      if (ownsPool) await pool.end();
      if (error instanceof BridleError) throw error;
      throw new BridleError("store_write", `opening the Postgres store failed: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  async createSession(options: CreateSessionOptions = {}): Promise<SessionInfo> {
    return this.#create(options, undefined);
  }

  async fork(sessionId: string, atSeq: number, options: ForkOptions = {}): Promise<SessionInfo> {
    this.#assertOpen();
    assertSessionId(sessionId);
    return this.#create(options, { sessionId, seq: atSeq });
  }

  async append(
    sessionId: string,
    events: readonly RunEvent[],
  ): Promise<{ readonly firstSeq: number; readonly lastSeq: number }> {
    this.#assertOpen();
    assertSessionId(sessionId);
    const types: string[] = [];
    const bodies: string[] = [];
    const withBlobs: boolean[] = [];
    const vectors: (string | null)[] = [];
    const blobs = new Map<string, string>();
    for (const event of events) {
      const record = toEventRecord(event, this.#threshold);
      for (const [hash, text] of record.blobs) blobs.set(hash, text);
      types.push(event.type);
      bodies.push(JSON.stringify(record.event));
      withBlobs.push(record.blobs.size > 0);
      const text = searchableText(event);
      vectors.push(text === undefined ? null : (tsvectorLiteral(text) ?? null));
    }
    // Sorted so two batches sharing blobs take their row locks in one order (no deadlock).
    const hashes = [...blobs.keys()].sort();
    // Three round trips: BEGIN with the lock, one statement that writes, COMMIT. The row lock serializes
    // every writer of this session, in any process, until commit. The id is inlined so BEGIN and the lock
    // go as one simple query: assertSessionId has allowed only letters, digits, "-" and "_".
    const lock = `SELECT last_seq FROM ${this.#t.sessions} WHERE id = '${sessionId}' FOR UPDATE`;
    return this.#transaction(async (client, locked) => {
      const row = (locked?.rows as { last_seq: string }[] | undefined)?.[0];
      if (!row) throw new BridleError("not_found", `no session "${sessionId}"`);
      const last = Number(row.last_seq);
      if (events.length === 0) return { firstSeq: last + 1, lastSeq: last };
      const seqs = events.map((_, i) => last + 1 + i);
      const lastSeq = last + events.length;
      // A stored blob that no longer matches its hash is damaged: writing the same content repairs it.
      await client.query(
        `WITH b AS (
           INSERT INTO ${this.#t.blobs} (hash, content) SELECT * FROM unnest($6::text[], $7::text[])
           ON CONFLICT (hash) DO UPDATE SET content = excluded.content
           WHERE ${this.#t.blobs}.content IS DISTINCT FROM excluded.content
         ), e AS (
           INSERT INTO ${this.#t.events} (session_id, seq, type, body, has_blobs, search)
           SELECT $1, * FROM unnest($2::bigint[], $3::text[], $4::text[], $5::boolean[], $8::tsvector[])
         )
         UPDATE ${this.#t.sessions} SET last_seq = $9, updated_at = $10 WHERE id = $1`,
        [
          sessionId,
          seqs,
          types,
          bodies,
          withBlobs,
          hashes,
          hashes.map((hash) => JSON.stringify(blobs.get(hash))),
          vectors,
          lastSeq,
          Date.now(),
        ],
      );
      return { firstSeq: last + 1, lastSeq };
    }, lock);
  }

  async *read(sessionId: string, fromSeq = 0): AsyncGenerator<StoredEvent> {
    this.#assertOpen();
    assertSessionId(sessionId);
    yield* this.#readUpTo(await this.#require(sessionId), fromSeq, Number.MAX_SAFE_INTEGER);
  }

  async get(sessionId: string): Promise<SessionInfo | undefined> {
    this.#assertOpen();
    assertSessionId(sessionId);
    const row = await this.#session(sessionId);
    return row ? toInfo(row) : undefined;
  }

  async list(options: { readonly limit?: number } = {}): Promise<readonly SessionInfo[]> {
    this.#assertOpen();
    const limit = options.limit === undefined ? null : Math.max(0, Math.floor(options.limit));
    const { rows } = await this.#query<SessionRow>(
      `SELECT * FROM ${this.#t.sessions} ORDER BY updated_at DESC, created_at DESC, id LIMIT $1`,
      [limit],
    );
    return rows.map(toInfo);
  }

  async search(query: string, options: SearchOptions = {}): Promise<readonly SearchHit[]> {
    this.#assertOpen();
    const terms = searchTerms(query);
    const limit = Math.max(0, Math.min(options.limit ?? 20, 1000));
    if (options.sessionId !== undefined) {
      assertSessionId(options.sessionId);
      await this.#require(options.sessionId);
    }
    const tsquery = tsqueryLiteral(terms);
    if (terms.length === 0 || limit === 0 || tsquery === undefined) return [];
    const filter = options.sessionId === undefined ? "" : "AND session_id = $3";
    const { rows } = await this.#query<{
      session_id: string;
      seq: string;
      type: RunEventType;
      body: string;
      has_blobs: boolean;
      rank: number;
    }>(
      `SELECT session_id, seq, type, body, has_blobs, ts_rank(search, q) AS rank
       FROM ${this.#t.events}, CAST($1 AS tsquery) AS q
       WHERE search IS NOT NULL AND search @@ q ${filter}
       ORDER BY rank DESC, session_id, seq LIMIT $2`,
      options.sessionId === undefined ? [tsquery, limit] : [tsquery, limit, options.sessionId],
    );
    const lookup = await this.#blobsFor(rows);
    return rows.map((row) => {
      const parsed = parseBody(row.body);
      const event = parsed && fromEventRecord(parsed, lookup).event;
      const text = (event && searchableText(event)) ?? "";
      return {
        sessionId: row.session_id,
        sessionSeq: Number(row.seq),
        eventType: row.type,
        snippet: snippetOf(text, terms),
        score: row.rank,
      };
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end();
  }

  async *#readUpTo(row: SessionRow, fromSeq: number, toSeq: number): AsyncGenerator<StoredEvent> {
    const parentSeq = row.parent_seq === null ? null : Number(row.parent_seq);
    if (row.parent_id !== null && parentSeq !== null && fromSeq <= parentSeq) {
      yield* this.#readUpTo(await this.#require(row.parent_id), fromSeq, Math.min(toSeq, parentSeq));
    }
    // Sequence numbers are gapless, so a page is a range of them: the query then touches only that page's
    // rows whatever plan Postgres picks (with `LIMIT`, an unanalyzed table was sorted whole for each page).
    const end = Math.min(toSeq, Number(row.last_seq));
    const fetchPage = async (from: number) => {
      const { rows } = await this.#query<{ seq: string; body: string; has_blobs: boolean }>(
        `SELECT seq, body, has_blobs FROM ${this.#t.events}
         WHERE session_id = $1 AND seq >= $2 AND seq <= $3 ORDER BY seq`,
        [row.id, from, Math.min(end, from + PAGE - 1)],
      );
      return { rows, lookup: await this.#blobsFor(rows) };
    };
    let from = Math.max(fromSeq, parentSeq === null ? 0 : parentSeq + 1);
    if (from > end) return;
    let pending = fetchPage(from);
    let last: RunEvent | undefined;
    for (;;) {
      const { rows: page, lookup } = await pending;
      from += PAGE;
      const more = from <= end;
      if (more) {
        // The next page is fetched while this one is decoded and consumed. A reader that stops early
        // leaves it unread: its failure then has no one to tell, so it is caught here.
        pending = fetchPage(from);
        pending.catch(() => {});
      }
      for (const { seq, body, has_blobs } of page) {
        const sessionSeq = Number(seq);
        const parsed = parseBody(body);
        if (parsed === undefined) {
          // A row that no longer parses costs only itself: reported in its place, the rest loads.
          const message = `${this.#t.events}: the event of session "${row.id}" at ${seq} is unreadable (not a JSON event)`;
          yield {
            sessionSeq,
            event: storeDamageEvent(message, last),
            damage: { kind: "unreadable", message },
          };
          continue;
        }
        const restored = has_blobs
          ? fromEventRecord(parsed, lookup)
          : { event: parsed as unknown as RunEvent };
        last = restored.event;
        yield { sessionSeq, ...restored };
      }
      if (!more) return;
    }
  }

  /** The blobs a page of rows references, fetched in one query, as the lookup core's restore asks for. */
  async #blobsFor(
    rows: readonly { body: string; has_blobs: boolean }[],
  ): Promise<(hash: string) => string | undefined> {
    const wanted = new Set<string>();
    for (const row of rows) if (row.has_blobs) collectBlobRefs(parseBody(row.body), wanted);
    if (wanted.size === 0) return () => undefined;
    const { rows: found } = await this.#query<{ hash: string; content: string }>(
      `SELECT hash, content FROM ${this.#t.blobs} WHERE hash = ANY($1::text[])`,
      [[...wanted]],
    );
    const blobs = new Map(found.map((blob) => [blob.hash, decodeBlob(blob.content)]));
    return (hash) => blobs.get(hash);
  }

  async #create(
    options: CreateSessionOptions,
    parent: { sessionId: string; seq: number } | undefined,
  ): Promise<SessionInfo> {
    this.#assertOpen();
    const id = options.id ?? randomUUID();
    assertSessionId(id);
    const now = Date.now();
    return this.#transaction(async (client) => {
      if (parent) {
        // Shared lock: the parent cannot gain or lose events between the check and the insert.
        const { rows } = await client.query<{ last_seq: string }>(
          `SELECT last_seq FROM ${this.#t.sessions} WHERE id = $1 FOR SHARE`,
          [parent.sessionId],
        );
        const row = rows[0];
        if (!row) throw new BridleError("not_found", `no session "${parent.sessionId}"`);
        assertForkPoint(parent.sessionId, Number(row.last_seq), parent.seq);
      }
      const { rows } = await client.query<SessionRow>(
        `INSERT INTO ${this.#t.sessions} (id, created_at, updated_at, last_seq, title, metadata, parent_id, parent_seq)
         VALUES ($1, $2, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING RETURNING *`,
        [
          id,
          now,
          parent ? parent.seq : -1,
          options.title ?? null,
          options.metadata === undefined ? null : JSON.stringify(options.metadata),
          parent?.sessionId ?? null,
          parent ? parent.seq : null,
        ],
      );
      const row = rows[0];
      if (!row) throw new BridleError("store_conflict", `session "${id}" already exists`);
      return toInfo(row);
    });
  }

  async #session(sessionId: string): Promise<SessionRow | undefined> {
    const { rows } = await this.#query<SessionRow>(`SELECT * FROM ${this.#t.sessions} WHERE id = $1`, [
      sessionId,
    ]);
    return rows[0];
  }

  async #require(sessionId: string): Promise<SessionRow> {
    const row = await this.#session(sessionId);
    if (!row) throw new BridleError("not_found", `no session "${sessionId}"`);
    return row;
  }

  async #query<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>(sql, params);
    } catch (error) {
      throw new BridleError("store_write", `Postgres query failed: ${messageOf(error)}`, { cause: error });
    }
  }

  /** Runs `work` in a transaction; `first` is sent with BEGIN as one query and its result handed over. */
  async #transaction<T>(
    work: (client: pg.PoolClient, first: pg.QueryResult | undefined) => Promise<T>,
    first?: string,
  ): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw new BridleError("store_write", `connecting to Postgres failed: ${messageOf(error)}`, {
        cause: error,
      });
    }
    let broken: Error | undefined;
    try {
      let result: T;
      try {
        // A multi-statement query yields one result per statement (node-postgres types only the single case).
        const begun: unknown = await client.query(first === undefined ? "BEGIN" : `BEGIN; ${first}`);
        result = await work(client, first === undefined ? undefined : (begun as pg.QueryResult[])[1]);
      } catch (error) {
        await client.query("ROLLBACK").catch((rollback: Error) => {
          broken = rollback;
        });
        if (error instanceof BridleError) throw error;
        throw new BridleError("store_write", `Postgres transaction failed: ${messageOf(error)}`, {
          cause: error,
        });
      }
      try {
        await client.query("COMMIT");
      } catch (error) {
        broken = error as Error;
        throw new BridleError("store_write", `committing to Postgres failed: ${messageOf(error)}`, {
          cause: error,
        });
      }
      return result;
    } catch (error) {
      if (error instanceof BridleError) throw error;
      broken = error as Error;
      throw new BridleError("store_write", `Postgres transaction failed: ${messageOf(error)}`, {
        cause: error,
      });
    } finally {
      // A connection whose state is unknown is destroyed rather than handed to the next caller.
      client.release(broken);
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new BridleError("invalid_argument", "this session store is closed");
  }
}

function toInfo(row: SessionRow): SessionInfo {
  return {
    id: row.id,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    lastSeq: Number(row.last_seq),
    ...(row.title === null ? {} : { title: row.title }),
    ...(row.parent_id === null || row.parent_seq === null
      ? {}
      : { parent: { sessionId: row.parent_id, seq: Number(row.parent_seq) } }),
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

/** Blob text is kept JSON-encoded: Postgres text cannot hold NUL, and tool output can. */
function decodeBlob(content: string): string {
  try {
    const value: unknown = JSON.parse(content);
    return typeof value === "string" ? value : content;
  } catch {
    return content;
  }
}

function collectBlobRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const inner of value) collectBlobRefs(inner, into);
  } else if (value !== null && typeof value === "object") {
    const hash = (value as { $blob?: unknown }).$blob;
    if (typeof hash === "string" && Object.keys(value).length === 1) into.add(hash);
    else for (const inner of Object.values(value)) collectBlobRefs(inner, into);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
