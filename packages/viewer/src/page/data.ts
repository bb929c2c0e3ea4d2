// The page's data: the view JSON block at once, the bodies block only when a row is first opened (for a
// large session it is most of the page's bytes). A served page replaces both when the session grows.
import type { LiveSource, PageData, SessionView } from "../view.js";

// Each session's long texts, by session id; `current` is the session the page shows.
let bodies: Record<string, readonly string[]> | undefined;
let current = "";

export function showingSession(id: string): void {
  current = id;
}

export function readPageData(): PageData {
  return JSON.parse(document.getElementById("bridle-view")?.textContent ?? "null") as PageData;
}

export function body(index: number): string {
  if (!bodies) {
    const el = document.getElementById("bridle-bodies");
    bodies = JSON.parse(el?.textContent ?? "{}") as Record<string, string[]>;
    // The text is parsed once; keeping it too would hold the page's largest string twice.
    if (el) el.textContent = "";
  }
  return bodies[current]?.[index] ?? "";
}

/** The session as the server has it now (a served page following a live run). */
export async function refetch(live: LiveSource): Promise<SessionView> {
  const response = await fetch(live.dataUrl, { credentials: "same-origin" });
  const data = (await response.json()) as { view: SessionView; bodies: string[] };
  bodies = { [data.view.session.id]: data.bodies };
  return data.view;
}
