import { lstat, open, readdir, realpath } from "node:fs/promises";
import { basename, dirname, extname, join, resolve } from "node:path";
import type { Readable } from "node:stream";
import type { Workspace } from "@bridle/core";
import fg from "fast-glob";
import { descriptorPath, READ_FLAGS, throughDescriptor } from "./descriptor.js";
import { checkedWalkFs } from "./walk-fs.js";

const MAX_SUGGESTIONS = 5;
const SEARCH_BUDGET_MS = 300;

/**
 * Paths the model may have meant when it named one that does not exist: entries of the nearest existing
 * folder whose names are a small edit away (or differ only in case or extension), then files with the
 * same name elsewhere in the workspace. Bounded in count and time; never outside the workspace.
 */
export async function suggestPaths(workspace: Workspace, requested: string): Promise<string[]> {
  const absolute = resolve(workspace.root, requested);
  const wanted = basename(absolute);
  if (wanted === "") return [];
  const found = new Set<string>();
  const folder = await nearestFolder(dirname(absolute));
  const listed = folder === undefined ? undefined : await listInside(workspace, folder);
  if (listed) {
    const scored = listed.entries
      .map((name) => ({ name, score: closeness(wanted, name) }))
      .filter((entry) => entry.score < Number.POSITIVE_INFINITY)
      .sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1));
    for (const entry of scored.slice(0, MAX_SUGGESTIONS)) found.add(join(listed.real, entry.name));
  }
  if (found.size < MAX_SUGGESTIONS) {
    for (const path of await sameNameElsewhere(workspace, wanted)) {
      if (found.size >= MAX_SUGGESTIONS) break;
      found.add(path);
    }
  }
  const inside: string[] = [];
  for (const path of found) {
    if (path !== absolute && (await workspace.contains(path)) && !workspace.isSecret(path)) {
      inside.push(workspace.display(path));
    }
  }
  return inside;
}

/**
 * A folder's entry names, read through a descriptor whose real path is inside the workspace; undefined
 * when the folder is a link (not followed) or leads outside. A missing path's folder is no more trusted
 * than the path: a link there must not show the model what is behind it.
 */
async function listInside(
  workspace: Workspace,
  folder: string,
): Promise<{ real: string; entries: string[] } | undefined> {
  const handle = await open(folder, READ_FLAGS).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const real = await descriptorPath(handle, folder);
    if (real === undefined || real === "" || !(await workspace.contains(real))) return undefined;
    return { real, entries: await readdir(throughDescriptor(handle, real)) };
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

async function nearestFolder(start: string): Promise<string | undefined> {
  let current = start;
  for (;;) {
    const found = await lstat(current).catch(() => undefined);
    if (found) return current;
    const up = dirname(current);
    if (up === current) return undefined;
    current = up;
  }
}

/** Lower is closer; infinity means unrelated. */
function closeness(wanted: string, candidate: string): number {
  if (candidate.toLowerCase() === wanted.toLowerCase()) return 0;
  const stem = (name: string) => name.slice(0, name.length - extname(name).length).toLowerCase();
  if (stem(candidate) === stem(wanted) && stem(wanted) !== "") return 1;
  const distance = editDistance(wanted.toLowerCase(), candidate.toLowerCase(), 3);
  const allowed = Math.min(3, Math.max(1, Math.floor(wanted.length / 4)));
  return distance <= allowed ? 1 + distance : Number.POSITIVE_INFINITY;
}

/** Levenshtein distance, giving up (returning cap + 1) once it must exceed `cap`. */
export function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > cap) return cap + 1;
    previous = row;
  }
  return previous[b.length] as number;
}

async function sameNameElsewhere(workspace: Workspace, name: string): Promise<string[]> {
  const stream = fg.stream(`**/${fg.escapePath(name)}`, {
    cwd: await realpath(workspace.root).catch(() => workspace.root),
    fs: checkedWalkFs(workspace) as unknown as Partial<fg.FileSystemAdapter>,
    absolute: true,
    caseSensitiveMatch: false,
    dot: true,
    followSymbolicLinks: false,
    suppressErrors: true,
    ignore: ["**/node_modules/**", "**/.git/**"],
  }) as Readable;
  const out: string[] = [];
  const deadline = setTimeout(() => stream.destroy(), SEARCH_BUDGET_MS);
  try {
    for await (const entry of stream) {
      out.push(String(entry));
      if (out.length >= MAX_SUGGESTIONS) break;
    }
  } catch {
    // A destroyed or failing walk only means fewer suggestions.
  } finally {
    clearTimeout(deadline);
    stream.destroy();
  }
  return out;
}
