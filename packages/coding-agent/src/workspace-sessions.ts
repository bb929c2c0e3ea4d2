// Memory and session tools. Memory is a folder of notes per workspace under the user's data folder, so
// what an agent learns about one repository is there the next time it works on it, and never in another's.
// Session tools read this workspace's sessions only: the store holds every project's sessions, and a tool
// that read them all would reach what the shell sandbox keeps out (the user's data folder).
import {
  BridleError,
  type CreateSessionOptions,
  type ForkOptions,
  type RunEvent,
  type SearchHit,
  type SearchOptions,
  type SessionInfo,
  type SessionStore,
  type StoredEvent,
} from "@bridle/core";

/** Where a session's workspace is recorded, in its metadata. */
const WORKSPACE_KEY = "workspace";

/** The workspace a session was recorded in (its real path), when the recipe's store tagged it. */
export function sessionWorkspace(info: Pick<SessionInfo, "metadata">): string | undefined {
  const value = info.metadata?.[WORKSPACE_KEY];
  return typeof value === "string" ? value : undefined;
}

/** The store as the CLI records into it: new sessions and forks are tagged with the workspace. */
export class TaggingStore implements SessionStore {
  readonly #inner: SessionStore;
  readonly #workspace: string;

  constructor(inner: SessionStore, workspace: string) {
    this.#inner = inner;
    this.#workspace = workspace;
  }

  createSession(options: CreateSessionOptions = {}): Promise<SessionInfo> {
    return this.#inner.createSession({ ...options, metadata: this.#tag(options.metadata) });
  }

  append(sessionId: string, events: readonly RunEvent[]) {
    return this.#inner.append(sessionId, events);
  }

  read(sessionId: string, fromSeq?: number): AsyncIterable<StoredEvent> {
    return this.#inner.read(sessionId, fromSeq);
  }

  get(sessionId: string): Promise<SessionInfo | undefined> {
    return this.#inner.get(sessionId);
  }

  list(options?: { readonly limit?: number }): Promise<readonly SessionInfo[]> {
    return this.#inner.list(options);
  }

  fork(sessionId: string, atSeq: number, options: ForkOptions = {}): Promise<SessionInfo> {
    return this.#inner.fork(sessionId, atSeq, { ...options, metadata: this.#tag(options.metadata) });
  }

  search(query: string, options?: SearchOptions): Promise<readonly SearchHit[]> {
    return this.#inner.search(query, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #tag(metadata: Readonly<Record<string, unknown>> | undefined): Readonly<Record<string, unknown>> {
    return { ...metadata, [WORKSPACE_KEY]: this.#workspace };
  }
}

/**
 * A read-only view of the sessions recorded in one workspace. Sessions from other workspaces (and from
 * before sessions were tagged) are not there: listing skips them, reading one is `not_found`.
 */
export class WorkspaceSessions implements SessionStore {
  readonly #inner: SessionStore;
  readonly #workspace: string;

  constructor(inner: SessionStore, workspace: string) {
    this.#inner = inner;
    this.#workspace = workspace;
  }

  async get(sessionId: string): Promise<SessionInfo | undefined> {
    const info = await this.#inner.get(sessionId);
    return info && this.#mine(info) ? info : undefined;
  }

  async *read(sessionId: string, fromSeq?: number): AsyncIterable<StoredEvent> {
    if (!(await this.get(sessionId))) {
      throw new BridleError("not_found", `no session "${sessionId}" in this workspace`);
    }
    yield* this.#inner.read(sessionId, fromSeq);
  }

  async list(options?: { readonly limit?: number }): Promise<readonly SessionInfo[]> {
    const mine = (await this.#inner.list()).filter((info) => this.#mine(info));
    return options?.limit === undefined ? mine : mine.slice(0, options.limit);
  }

  async search(query: string, options: SearchOptions = {}): Promise<readonly SearchHit[]> {
    if (options.sessionId !== undefined && !(await this.get(options.sessionId))) return [];
    const limit = options.limit ?? 20;
    const mine = new Set((await this.list()).map((info) => info.id));
    // Other workspaces' hits are dropped after the search: ask for more than needed, then keep ours.
    const hits = await this.#inner.search(query, { ...options, limit: limit * 10 });
    return hits.filter((hit) => mine.has(hit.sessionId)).slice(0, limit);
  }

  createSession(): Promise<SessionInfo> {
    return Promise.reject(readOnly());
  }

  append(): Promise<{ readonly firstSeq: number; readonly lastSeq: number }> {
    return Promise.reject(readOnly());
  }

  fork(): Promise<SessionInfo> {
    return Promise.reject(readOnly());
  }

  async close(): Promise<void> {
    // The store belongs to the agent; this view owns nothing.
  }

  #mine(info: SessionInfo): boolean {
    return info.metadata?.[WORKSPACE_KEY] === this.#workspace;
  }
}

function readOnly(): BridleError {
  return new BridleError("invalid_argument", "the session tools only read sessions");
}
