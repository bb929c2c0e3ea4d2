import { type DottedPath, missing, valueAt } from "./dotted-path.js";
import type { Filter } from "./filters.js";

/**
 * A row as the model sees it: the projected fields (or the whole row), with every string longer than
 * `snippetChars` cut to a window (centred on where a contains/regex filter matched, for that field), and
 * the whole rendering cut at `rowChars`.
 */
export function renderRow(
  row: unknown,
  projection: readonly { readonly field: string; readonly path: DottedPath }[],
  filters: readonly Filter[],
  limits: { readonly snippetChars: number; readonly rowChars: number },
): string {
  const centres = new Map<string, (text: string) => number>();
  for (const filter of filters) if (filter.hit) centres.set(filter.field, filter.hit);
  let shown: unknown;
  if (projection.length === 0) {
    shown = shrink(row, "", centres, limits.snippetChars);
  } else {
    const picked: Record<string, unknown> = {};
    for (const { field, path } of projection) {
      const value = valueAt(row, path);
      if (value !== missing) picked[field] = shrink(value, field, centres, limits.snippetChars);
    }
    shown = picked;
  }
  const text = JSON.stringify(shown);
  if (text.length <= limits.rowChars) return text;
  return `${text.slice(0, limits.rowChars)} …[${text.length - limits.rowChars} more characters]`;
}

function shrink(
  value: unknown,
  at: string,
  centres: ReadonlyMap<string, (text: string) => number>,
  max: number,
): unknown {
  if (typeof value === "string")
    return value.length <= max ? value : window(value, centres.get(at)?.(value), max);
  if (Array.isArray(value))
    return value.map((item, index) => shrink(item, join(at, String(index)), centres, max));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = shrink(item, join(at, key), centres, max);
    return out;
  }
  return value;
}

function join(at: string, key: string): string {
  return at === "" ? key : `${at}.${key}`;
}

/** `max` characters of `text` around `centre` (from the start when there is none), marked where cut. */
function window(text: string, centre: number | undefined, max: number): string {
  const start =
    centre === undefined || centre < 0
      ? 0
      : Math.max(0, Math.min(centre - Math.floor(max / 3), text.length - max));
  const end = start + max;
  return `${start > 0 ? `…[${start}] ` : ""}${text.slice(start, end)}${end < text.length ? ` …[${text.length - end} more]` : ""}`;
}
