import type { SessionStore } from "@bridle/core";
import { renderPage } from "./html.js";
import { loadProjection } from "./load.js";
import type { ProjectionOptions } from "./project.js";

/**
 * One session as one self-contained HTML page: no network request, no external file; the transcript,
 * diffs, waterfall and handoff are drawn by the script inside it. The sessions forked from it, and the
 * one it was forked from, are in the page too (one click away). Unknown sessions fail with `not_found`.
 */
export async function exportSessionHtml(
  store: SessionStore,
  sessionId: string,
  options: ProjectionOptions = {},
): Promise<string> {
  const { view, bodies } = await loadProjection(store, sessionId, options);
  // The session's neighbours in its tree come along, so its branches (and a fork's parent) open offline.
  const neighbours = [
    ...(view.session.parent ? [view.session.parent.sessionId] : []),
    ...view.branches.map((branch) => branch.id),
  ];
  const related = await Promise.all(neighbours.map((id) => loadProjection(store, id, options)));
  const allBodies: Record<string, readonly string[]> = { [sessionId]: bodies };
  for (const other of related) allBodies[other.view.session.id] = other.bodies;
  const title = `${view.session.title ?? view.session.id} · Bridle session`;
  const data = {
    page: "session" as const,
    view,
    ...(related.length > 0 ? { related: related.map((r) => r.view) } : {}),
  };
  return renderPage(data, allBodies, { title });
}
