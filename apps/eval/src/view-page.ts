// Each run's page in the session viewer: the same self-contained HTML `bridle sessions export --html`
// writes and `bridle view` serves at /s/<store>/<session id>, saved beside the results so the report links
// a readable transcript (diffs, waterfall, handoff) instead of the raw events.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sessionPageOptions } from "@bridle/coding-agent";
import type { SessionStore } from "@bridle/core";

/** Folder of the pages, relative to the results file. */
export const PAGES_DIR = "pages";

/**
 * Writes the run's page to `<outDir>/pages/<session id>.html` and returns that path relative to the
 * results file; undefined when the run recorded no session or the page could not be made (the line
 * then links its events, and says why in a note).
 */
export async function writeViewPage(
  store: SessionStore,
  sessionId: string,
  outDir: string,
): Promise<{ viewPath?: string; note?: string }> {
  if (!sessionId) return {};
  try {
    const { exportSessionHtml } = await import("@bridle/viewer");
    const page = await exportSessionHtml(store, sessionId, await sessionPageOptions());
    await mkdir(join(outDir, PAGES_DIR), { recursive: true });
    await writeFile(join(outDir, PAGES_DIR, `${sessionId}.html`), page);
    return { viewPath: `${PAGES_DIR}/${sessionId}.html` };
  } catch (error) {
    return { note: `no viewer page: ${(error as Error).message}` };
  }
}
