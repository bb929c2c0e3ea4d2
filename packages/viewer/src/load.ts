import { BridleError, type SessionStore, type StoredEvent } from "@bridle/core";
import { type Projection, type ProjectionOptions, projectSession } from "./project.js";
import type { BranchView } from "./view.js";

/** A session of `store` read whole and projected for the page. Unknown sessions fail with `not_found`. */
export async function loadProjection(
  store: SessionStore,
  sessionId: string,
  options: ProjectionOptions = {},
): Promise<Projection> {
  const info = await store.get(sessionId);
  if (!info) throw new BridleError("not_found", `no session "${sessionId}"`);
  const stored: StoredEvent[] = [];
  for await (const event of store.read(sessionId)) stored.push(event);
  const branches: BranchView[] = (await store.list())
    .filter((s) => s.parent?.sessionId === sessionId)
    .map((s) => ({ id: s.id, ...(s.title ? { title: s.title } : {}), seq: s.parent?.seq ?? -1 }));
  // The info after reading: a live session may have grown meanwhile, and the page shows what it read.
  const lastSeq = stored.at(-1)?.sessionSeq ?? info.lastSeq;
  const projection = projectSession({ ...info, lastSeq }, stored, branches, options);
  // A run left open by a process that died is not going on: a store that knows whether the session's
  // process still runs is asked.
  if (!projection.view.summary.running || !store.writing || (await store.writing(sessionId)))
    return projection;
  const { running: _, ...summary } = projection.view.summary;
  return { ...projection, view: { ...projection.view, summary } };
}
