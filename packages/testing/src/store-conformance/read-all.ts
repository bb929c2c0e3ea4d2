import type { SessionStore, StoredEvent } from "@bridle/core";

/** Every event of a session from `fromSeq`. */
export async function readAll(
  store: SessionStore,
  sessionId: string,
  fromSeq?: number,
): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const stored of store.read(sessionId, fromSeq)) out.push(stored);
  return out;
}
