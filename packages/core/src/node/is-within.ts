import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";

/**
 * Whether `path` is `place` or lies under it, by the names alone: both must be absolute and normalized.
 * The test is on path segments, so a sibling named like the place (`/work-evil` beside `/work`) is not in it.
 */
export function isWithin(place: string, path: string): boolean {
  const rel = relative(place, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Whether `path` is within any of `places` (see `isWithin`). */
export function isWithinAny(places: readonly string[], path: string): boolean {
  return places.some((place) => isWithin(place, path));
}

/**
 * Whether `path` (absolute) really lies inside `place`, through every symbolic link: both are resolved,
 * `path` as far as it exists (a file about to be created is judged by its real parent). An entry that is
 * there but has no real path (a dangling link the agent could point anywhere later, a loop, a folder that
 * may not be searched) is not provably inside, so it is not inside.
 */
export async function isWithinResolved(place: string, path: string): Promise<boolean> {
  const realPlace = await realpath(place).catch(() => place);
  const real = await realPathOf(path);
  return real !== undefined && isWithin(realPlace, real);
}

/**
 * The real path `path` (absolute) has, or would have once created: its longest existing prefix resolved,
 * the missing rest appended. Undefined when an entry on the way exists but cannot be resolved (a dangling
 * link, which would be written through to wherever it points; a loop; a folder that may not be searched).
 */
export async function realPathOf(path: string): Promise<string | undefined> {
  let existing = path;
  const missing: string[] = [];
  for (;;) {
    try {
      return join(await realpath(existing), ...missing);
    } catch {
      const there = await lstat(existing).then(
        () => true,
        () => false,
      );
      if (there) return undefined;
      const parent = dirname(existing);
      if (parent === existing) return undefined;
      missing.unshift(basename(existing));
      existing = parent;
    }
  }
}
