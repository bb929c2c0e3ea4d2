import { randomUUID } from "node:crypto";
import { writeSync } from "node:fs";
import { type FileHandle, mkdir, open, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  assertForkPoint,
  assertSessionId,
  BridleError,
  type CreateSessionOptions,
  DEFAULT_BLOB_THRESHOLD,
  type ForkOptions,
  fromEventRecord,
  isErrno,
  matchText,
  type RunEvent,
  type SearchHit,
  type SearchOptions,
  type SessionInfo,
  type SessionStore,
  type StoreDamage,
  type StoredEvent,
  searchableText,
  searchTerms,
  toEventRecord,
} from "@bridle/core";
import { writeFileAtomic } from "@bridle/core/node";
import { BlobDir } from "./blob-dir.js";
import { DamageTracker } from "./damage.js";
import { lockHeld, WriterLock } from "./lock.js";
import {
  type EntryLine,
  entryId,
  entryLine,
  FORMAT,
  linesOf,
  parseEntry,
  parseHeader,
  readHeader,
  readTail,
  type SessionHeader,
  seqOfLine,
  type Tail,
} from "./session-file.js";

/**
 * When an append counts as done.
 * - "append": fsync before every `append` resolves (survives power loss; the default).
 * - "batch": written to the OS before `append` resolves (survives the process dying), fsynced at most
 *   `syncIntervalMs` later and on `flush`/`close` (power loss may cost that window).
 * - "none": written to the OS, never fsynced.
 */
export type JsonlDurability = "append" | "batch" | "none";

export interface JsonlStoreOptions {
  /** The store's folder: sessions/<id>.jsonl, sessions/<id>.lock, blobs/<xx>/<sha256>. */
  readonly dir: string;
  readonly durability?: JsonlDurability;
  /** For "batch": the longest an acknowledged append waits for its fsync (default 200 ms). */
  readonly syncIntervalMs?: number;
  /** Strings in tool output at least this long are stored once as blobs (default 16 KiB). */
  readonly blobThreshold?: number;
}

interface Writer {
  readonly handle: FileHandle;
  readonly lock: WriterLock;
  lastSeq: number;
  /** The entry the next one follows, as "<session>:<seq>"; null before a root session's first event. */
  lastEntry: string | null;
  size: number;
  dirty: boolean;
}

/**
 * A session store of plain files: one append-only JSONL file per session. Lines are never rewritten: a fork
 * is a new file whose header points at its parent's entry, and loading skips a torn last line instead of
 * failing. Each session has one writer at a time (a lock file names it); readers need no lock.
 */
export class JsonlSessionStore implements SessionStore {
  readonly dir: string;
  readonly durability: JsonlDurability;
  readonly #sessions: string;
  readonly #blobs: BlobDir;
  readonly #threshold: number;
  readonly #syncIntervalMs: number;
  readonly #writers = new Map<string, Promise<Writer>>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #headers = new Map<string, { header: SessionHeader; bytes: number }>();
  #syncTimer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(options: JsonlStoreOptions) {
    this.dir = options.dir;
    this.durability = options.durability ?? "append";
    this.#sessions = join(options.dir, "sessions");
    this.#blobs = new BlobDir(join(options.dir, "blobs"));
    this.#threshold = options.blobThreshold ?? DEFAULT_BLOB_THRESHOLD;
    this.#syncIntervalMs = options.syncIntervalMs ?? 200;
  }

  static async open(options: JsonlStoreOptions): Promise<JsonlSessionStore> {
    const store = new JsonlSessionStore(options);
    await mkdir(store.#sessions, { recursive: true });
    return store;
  }

  async createSession(options: CreateSessionOptions = {}): Promise<SessionInfo> {
    return this.#create(options, undefined);
  }

  async fork(sessionId: string, atSeq: number, options: ForkOptions = {}): Promise<SessionInfo> {
    const parent = await this.#require(sessionId);
    assertForkPoint(sessionId, parent.lastSeq, atSeq);
    return this.#create(options, { sessionId, seq: atSeq });
  }

  async append(
    sessionId: string,
    events: readonly RunEvent[],
  ): Promise<{ readonly firstSeq: number; readonly lastSeq: number }> {
    this.#assertOpen();
    assertSessionId(sessionId);
    return this.#serialize(sessionId, async () => {
      const writer = await this.#writer(sessionId);
      const firstSeq = writer.lastSeq + 1;
      if (events.length === 0) return { firstSeq, lastSeq: writer.lastSeq };
      const sync = this.durability === "append";
      const lines: string[] = [];
      let seq = writer.lastSeq;
      for (const event of events) {
        const record = toEventRecord(event, this.#threshold);
        for (const [hash, text] of record.blobs) await this.#blobs.put(hash, text, sync);
        const entry: EntryLine = {
          seq: seq + 1,
          parent: seq > writer.lastSeq ? entryId(sessionId, seq) : writer.lastEntry,
          ...(record.blobs.size > 0 ? { blobs: [...record.blobs.keys()] } : {}),
          event: record.event,
        };
        lines.push(entryLine(entry));
        seq++;
      }
      const buffer = Buffer.from(`${lines.join("\n")}\n`);
      try {
        await writeAll(writer.handle, buffer, writer.size);
        if (sync) await writer.handle.datasync();
      } catch (error) {
        // All or nothing: cut off whatever part of the batch reached the file.
        await writer.handle.truncate(writer.size).catch(() => {});
        throw new BridleError("store_write", `appending to session "${sessionId}" failed`, { cause: error });
      }
      writer.size += buffer.length;
      writer.lastSeq = seq;
      writer.lastEntry = entryId(sessionId, seq);
      if (this.durability === "batch") this.#scheduleSync(writer);
      return { firstSeq, lastSeq: seq };
    });
  }

  async *read(sessionId: string, fromSeq = 0): AsyncGenerator<StoredEvent> {
    this.#assertOpen();
    const { header, bytes } = await this.#header(sessionId);
    const parent = header.parent;
    if (parent && fromSeq <= parent.seq) {
      for await (const stored of this.read(parent.sessionId, fromSeq)) {
        if (stored.sessionSeq > parent.seq) break;
        yield stored;
      }
    }
    const path = this.#path(sessionId);
    const damage = new DamageTracker(path, parent ? parent.seq + 1 : 0);
    let lineNumber = 1;
    for await (const line of linesOf(path, bytes)) {
      lineNumber++;
      const claimed = seqOfLine(line.text);
      // Lines before `fromSeq` are skipped unparsed; damage there is not this reader's concern.
      if (claimed !== undefined && claimed < fromSeq && damage.expects(claimed) && line.text.endsWith("}")) {
        damage.skip(claimed);
        continue;
      }
      const entry = parseEntry(line.text);
      if (!entry) {
        // A torn last line is a write that crashed before it was acknowledged: nothing was lost.
        if (line.terminated) damage.line(lineNumber, "does not parse as an entry");
        continue;
      }
      if (entry.seq < damage.expected) {
        damage.line(lineNumber, `repeats entry ${entry.seq}`);
        continue;
      }
      const { notices, stray } = damage.before(entry.seq);
      for (const notice of notices) if (notice.sessionSeq >= fromSeq) yield notice;
      if (entry.seq < fromSeq) continue;
      const restored = entry.blobs
        ? fromEventRecord(entry.event, (hash) => this.#blobs.get(hash))
        : { event: entry.event as RunEvent };
      damage.seen(restored.event);
      const found = mergeDamage(restored.damage, stray);
      yield { sessionSeq: entry.seq, event: restored.event, ...(found ? { damage: found } : {}) };
    }
    for (const notice of damage.atEnd()) if (notice.sessionSeq >= fromSeq) yield notice;
  }

  async get(sessionId: string): Promise<SessionInfo | undefined> {
    this.#assertOpen();
    assertSessionId(sessionId);
    try {
      return await this.#info(sessionId);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async list(options: { readonly limit?: number } = {}): Promise<readonly SessionInfo[]> {
    this.#assertOpen();
    const found = await mapLimit(await this.#ids(), PARALLEL_FILES, (id) =>
      this.get(id).catch(() => undefined),
    );
    const infos = found.filter((info): info is SessionInfo => info !== undefined);
    infos.sort((a, b) => b.updatedAt - a.updatedAt || b.createdAt - a.createdAt);
    return options.limit === undefined ? infos : infos.slice(0, Math.max(0, options.limit));
  }

  async search(query: string, options: SearchOptions = {}): Promise<readonly SearchHit[]> {
    this.#assertOpen();
    const terms = searchTerms(query);
    const limit = Math.max(0, Math.min(options.limit ?? 20, 1000));
    if (options.sessionId !== undefined) await this.#header(options.sessionId);
    if (terms.length === 0 || limit === 0) return [];
    const ids = options.sessionId === undefined ? await this.#ids() : [options.sessionId];
    const perSession = await mapLimit(ids, PARALLEL_FILES, (sessionId) =>
      this.#searchSession(sessionId, terms, limit, options.sessionId !== undefined),
    );
    return best(perSession.flat(), limit);
  }

  async #searchSession(
    sessionId: string,
    terms: readonly string[],
    limit: number,
    required: boolean,
  ): Promise<SearchHit[]> {
    let hits: SearchHit[] = [];
    assertSessionId(sessionId);
    const path = this.#path(sessionId);
    const cached = this.#headers.get(sessionId);
    // One read per file: the header comes with the lines when it is not cached yet.
    let headerPending = cached === undefined;
    try {
      for await (const { text: line } of linesOf(path, cached?.bytes ?? 0)) {
        if (headerPending) {
          headerPending = false;
          this.#headers.set(sessionId, {
            header: parseHeader(line, path),
            bytes: Buffer.byteLength(line) + 1,
          });
          continue;
        }
        // Cheap filter on the raw line: a term that is not in it cannot be in its text (blobs aside).
        const lower = line.toLowerCase();
        if (!line.includes('"blobs":') && !terms.every((term) => lower.includes(term))) continue;
        const entry = parseEntry(line);
        if (!entry) continue;
        // A damaged blob is searched as its placeholder: search reads, it does not report.
        const event = entry.blobs
          ? fromEventRecord(entry.event, (hash) => this.#blobs.get(hash)).event
          : (entry.event as RunEvent);
        const text = searchableText(event);
        const match = text === undefined ? undefined : matchText(text, terms);
        if (!match) continue;
        hits.push({ sessionId, sessionSeq: entry.seq, eventType: event.type, ...match });
        if (hits.length >= limit * 4) hits = best(hits, limit);
      }
    } catch (error) {
      if (!isErrno(error, "ENOENT")) throw error;
      if (required) throw notFound(sessionId);
    }
    return best(hits, limit);
  }

  /** Fsyncs everything appended so far (what "batch" durability otherwise does on a timer). */
  async flush(): Promise<void> {
    for (const pending of this.#writers.values()) {
      const writer = await pending.catch(() => undefined);
      if (writer?.dirty) {
        writer.dirty = false;
        await writer.handle.datasync();
      }
    }
  }

  async writing(sessionId: string): Promise<boolean> {
    assertSessionId(sessionId);
    return lockHeld(`${join(this.#sessions, sessionId)}.lock`);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await Promise.allSettled(this.#queues.values());
    if (this.#syncTimer) clearTimeout(this.#syncTimer);
    if (this.durability !== "none") await this.flush();
    this.#closed = true;
    for (const pending of this.#writers.values()) {
      const writer = await pending.catch(() => undefined);
      if (!writer) continue;
      await writer.handle.close().catch(() => {});
      await writer.lock.release();
    }
    this.#writers.clear();
  }

  async #create(
    options: CreateSessionOptions,
    parent: { sessionId: string; seq: number } | undefined,
  ): Promise<SessionInfo> {
    this.#assertOpen();
    const id = options.id ?? randomUUID();
    assertSessionId(id);
    const header: SessionHeader = {
      kind: "session",
      format: FORMAT,
      id,
      createdAt: Date.now(),
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
      ...(parent ? { parent } : {}),
    };
    const path = this.#path(id);
    // Written whole under a temporary name, then linked into place: a session file always has its header,
    // and linking fails if the id is taken, even by another process.
    const created = await writeFileAtomic(path, `${JSON.stringify(header)}\n`, {
      ifAbsent: true,
      durable: this.durability !== "none",
    });
    if (!created) throw new BridleError("store_conflict", `session "${id}" already exists`);
    return this.#info(id);
  }

  async #info(sessionId: string): Promise<SessionInfo> {
    const { header, bytes } = await this.#header(sessionId);
    const path = this.#path(sessionId);
    const pending = this.#writers.get(sessionId);
    const writer = pending ? await pending.catch(() => undefined) : undefined;
    let lastSeq: number;
    if (writer) {
      lastSeq = writer.lastSeq;
    } else {
      const handle = await open(path, "r");
      try {
        const { size } = await handle.stat();
        lastSeq = lastSeqOf(await readTail(handle, size, bytes), header);
      } finally {
        await handle.close();
      }
    }
    const { mtimeMs } = await stat(path);
    return {
      id: header.id,
      createdAt: header.createdAt,
      updatedAt: Math.max(header.createdAt, Math.floor(mtimeMs)),
      lastSeq,
      ...(header.title === undefined ? {} : { title: header.title }),
      ...(header.parent ? { parent: header.parent } : {}),
      ...(header.metadata === undefined ? {} : { metadata: header.metadata }),
    };
  }

  async #require(sessionId: string): Promise<SessionInfo> {
    const info = await this.get(sessionId);
    if (!info) throw notFound(sessionId);
    return info;
  }

  async #header(sessionId: string): Promise<{ header: SessionHeader; bytes: number }> {
    assertSessionId(sessionId);
    const cached = this.#headers.get(sessionId);
    if (cached) return cached;
    try {
      const found = await readHeader(this.#path(sessionId));
      this.#headers.set(sessionId, found);
      return found;
    } catch (error) {
      if (isErrno(error, "ENOENT")) throw notFound(sessionId);
      throw error;
    }
  }

  /** The session whose file holds entry `seq` of `sessionId` (a fork's early entries are its parent's). */
  async #owner(sessionId: string, seq: number): Promise<string> {
    const parent = (await this.#header(sessionId)).header.parent;
    if (parent && seq <= parent.seq) return this.#owner(parent.sessionId, seq);
    return sessionId;
  }

  #writer(sessionId: string): Promise<Writer> {
    let pending = this.#writers.get(sessionId);
    if (!pending) {
      pending = this.#openWriter(sessionId);
      this.#writers.set(sessionId, pending);
      pending.catch(() => this.#writers.delete(sessionId));
    }
    return pending;
  }

  async #openWriter(sessionId: string): Promise<Writer> {
    const { header, bytes } = await this.#header(sessionId);
    const path = this.#path(sessionId);
    const lock = await WriterLock.acquire(`${join(this.#sessions, sessionId)}.lock`, sessionId);
    try {
      const handle = await open(path, "r+");
      const { size } = await handle.stat();
      const tail = await readTail(handle, size, bytes);
      let end = tail.goodEnd;
      // Under the lock, a torn tail is the remains of a write that was never acknowledged: drop it.
      // Damaged whole lines stay, and keep their sequence numbers: readers report them.
      if (end < size) await handle.truncate(end);
      if (tail.unterminated) {
        await writeAll(handle, Buffer.from("\n"), end);
        end += 1;
      }
      const lastSeq = lastSeqOf(tail, header);
      const lastEntry = lastSeq < 0 ? null : entryId(await this.#owner(sessionId, lastSeq), lastSeq);
      return { handle, lock, lastSeq, lastEntry, size: end, dirty: false };
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  #scheduleSync(writer: Writer): void {
    writer.dirty = true;
    if (this.#syncTimer) return;
    this.#syncTimer = setTimeout(() => {
      this.#syncTimer = undefined;
      this.flush().catch(() => {});
    }, this.#syncIntervalMs);
    this.#syncTimer.unref();
  }

  #serialize<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(sessionId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => {});
    this.#queues.set(sessionId, settled);
    settled.then(() => {
      if (this.#queues.get(sessionId) === settled) this.#queues.delete(sessionId);
    });
    return next;
  }

  async #ids(): Promise<string[]> {
    const names = await readdir(this.#sessions);
    return names.filter((name) => name.endsWith(".jsonl")).map((name) => name.slice(0, -".jsonl".length));
  }

  #path(sessionId: string): string {
    return join(this.#sessions, `${sessionId}.jsonl`);
  }

  #assertOpen(): void {
    if (this.#closed) throw new BridleError("invalid_argument", "this session store is closed");
  }
}

/** How many session files list and search read at once: file reads wait on the disk, not the CPU. */
const PARALLEL_FILES = 32;

async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      out[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Writes the whole buffer at `position`. The write is synchronous: an append of a few lines lands in the
 * page cache in microseconds, and a harness waits for it before each tool call runs, where a thread-pool
 * round trip would add a tenth of a millisecond or more of wake-ups. Durability still comes from the
 * fsyncs, which stay off the event loop.
 */
async function writeAll(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < buffer.length) {
    written += writeSync(handle.fd, buffer, written, buffer.length - written, position + written);
  }
}

/** The session's last sequence number: its last good entry's, plus the damaged entries written after it. */
function lastSeqOf(tail: Tail, header: SessionHeader): number {
  return (tail.lastSeq ?? header.parent?.seq ?? -1) + tail.damagedAfter;
}

function mergeDamage(
  first: StoreDamage | undefined,
  second: StoreDamage | undefined,
): StoreDamage | undefined {
  if (!first || !second) return first ?? second;
  return { kind: first.kind, message: `${first.message}; ${second.message}` };
}

function best(hits: SearchHit[], limit: number): SearchHit[] {
  return hits.sort((a, b) => b.score - a.score || a.sessionSeq - b.sessionSeq).slice(0, limit);
}

function isNotFound(error: unknown): boolean {
  return error instanceof BridleError && error.code === "not_found";
}

function notFound(sessionId: string): BridleError {
  return new BridleError("not_found", `no session "${sessionId}"`);
}
