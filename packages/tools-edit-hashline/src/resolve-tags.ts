import type { LineSource } from "./document.js";
import type { HashlineEdit } from "./edit-schema.js";
import type { ShownLine } from "./read-state.js";
import { lineTag, normalizeTag, type TextEncodingName } from "./tag.js";

export type TagProblem =
  | { readonly kind: "malformed"; readonly raw: string }
  | { readonly kind: "unknown"; readonly tag: string }
  | {
      readonly kind: "stale";
      readonly tag: string;
      readonly was: ShownLine;
      /** Where a line with the same text is now (nearest to where it was), when that is a safe guess. */
      readonly movedTo: number | undefined;
    };

export interface ResolvedTags {
  /** Tag → 0-based line index in the current file, for every tag that still matches. */
  readonly index: ReadonlyMap<string, number>;
  readonly problems: readonly TagProblem[];
}

export function tagsOf(edit: HashlineEdit): string[] {
  return edit.op === "replace_range" ? [edit.start_tag, edit.end_tag] : [edit.tag];
}

/**
 * Check every tag of a call against the file as it is now. A tag is looked up where the model was shown
 * it, so only the lines an edit touches are hashed, however large the file.
 */
export function resolveTags(
  edits: readonly HashlineEdit[],
  lines: LineSource,
  encoding: TextEncodingName,
  shownTags: ReadonlyMap<string, ShownLine>,
): ResolvedTags {
  const index = new Map<string, number>();
  const problems: TagProblem[] = [];
  const seen = new Set<string>();
  for (const raw of edits.flatMap(tagsOf)) {
    if (seen.has(raw)) continue;
    seen.add(raw);
    const tag = normalizeTag(raw);
    if (tag === undefined) {
      problems.push({ kind: "malformed", raw });
      continue;
    }
    if (index.has(tag)) continue;
    const shown = shownTags.get(tag);
    if (!shown) {
      problems.push({ kind: "unknown", tag });
      continue;
    }
    if (shown.line <= lines.count && lineTag(shown.line, lines.text(shown.line - 1), encoding) === tag) {
      index.set(tag, shown.line - 1);
      continue;
    }
    problems.push({ kind: "stale", tag, was: shown, movedTo: relocate(lines, shown) });
  }
  return { index, problems };
}

/** The nearest line with exactly the text a stale tag was shown for; none for blank or one-char lines. */
function relocate(lines: LineSource, was: ShownLine): number | undefined {
  if (was.text.trim().length <= 1) return undefined;
  const origin = was.line - 1;
  const reach = Math.max(origin, lines.count - origin);
  for (let d = 0; d <= reach; d++) {
    const before = origin - d;
    if (before >= 0 && before < lines.count && lines.text(before) === was.text) return before + 1;
    const after = origin + d;
    if (d > 0 && after < lines.count && lines.text(after) === was.text) return after + 1;
  }
  return undefined;
}
