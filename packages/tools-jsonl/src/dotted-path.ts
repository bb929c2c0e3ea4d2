/** A field path as the model writes it: `user.id`, `items.0.name` (a number indexes an array). */
export type DottedPath = readonly string[];

const MAX_SEGMENTS = 32;

/** Split a dotted path; undefined when it is empty, has an empty segment or is absurdly deep. */
export function parseDottedPath(path: string): DottedPath | undefined {
  const segments = path.split(".");
  if (segments.length > MAX_SEGMENTS || segments.some((segment) => segment === "")) return undefined;
  return segments;
}

const MISSING: unique symbol = Symbol("missing");
export type Missing = typeof MISSING;
export const missing: Missing = MISSING;

/**
 * The value at `path` in a parsed JSON value, or `missing`. Only own properties count, so `constructor`
 * or `__proto__` never reach Object.prototype; an array is indexed by a segment of digits only.
 */
export function valueAt(root: unknown, path: DottedPath): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return MISSING;
      const index = Number(segment);
      if (index >= current.length) return MISSING;
      current = current[index];
    } else if (current !== null && typeof current === "object") {
      if (!Object.hasOwn(current, segment)) return MISSING;
      current = (current as Record<string, unknown>)[segment];
    } else {
      return MISSING;
    }
  }
  return current;
}
