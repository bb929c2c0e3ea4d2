import type { SessionStore } from "@bridle/core";
import { renderPage } from "./html.js";
import { loadProjection } from "./load.js";
import type { ProjectionOptions } from "./project.js";

/**
 * One session as one self-contained HTML page: no network request, no external file; the transcript,
 * diffs, waterfall and handoff are drawn by the script inside it. Unknown sessions fail with `not_found`.
 */
export async function exportSessionHtml(
  store: SessionStore,
  sessionId: string,
  options: ProjectionOptions = {},
): Promise<string> {
  const { view, bodies } = await loadProjection(store, sessionId, options);
  const title = `${view.session.title ?? view.session.id} · Bridle session`;
  return renderPage({ page: "session", view }, bodies, { title });
}
