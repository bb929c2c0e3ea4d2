import { textSimilarity as similarity } from "@bridle/tools-fs";
import type { LineSource } from "./document.js";
import type { HashlineEdit } from "./edit-schema.js";
import type { ShownLine } from "./read-state.js";
import { lineTag, parseTagRef, type TextEncodingName } from "./tag.js";

export type TagProblem =
  | { readonly kind: "malformed"; readonly raw: string }
  | {
      /** A bare line number sent where the tag goes. */
      readonly kind: "line-number";
      readonly said: number;
    }
  | {
      readonly kind: "unknown";
      readonly tag: string;
      /** The one line whose shown tag is a single character away from this one, when exactly one is. */
      readonly near: ShownLine | undefined;
      /** The line number written before it, if any. */
      readonly said: number | undefined;
      /** With no near tag: the shown lines most like the edit's new text, best first. */
      readonly likely: readonly ShownLine[];
    }
  | {
      /** The line number written before the tag is not the line the tag belongs to. */
      readonly kind: "line-mismatch";
      readonly tag: string;
      readonly said: number;
      readonly was: ShownLine;
    }
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
  const unknown = (tag: string, near: ShownLine | undefined, said: number | undefined, raw: string) => {
    const likely = near === undefined && said === undefined ? likelyLines(edits, raw, shownTags) : [];
    problems.push({ kind: "unknown", tag, near, said, likely });
  };
  for (const raw of edits.flatMap(tagsOf)) {
    if (seen.has(raw)) continue;
    seen.add(raw);
    const ref = parseTagRef(raw);
    // Up to six digits: seven or more may be a hex tag missing a character, which is judged as one.
    const number = /^\s*(\d{1,6})\s*$/.exec(raw)?.[1];
    if (ref === undefined && number !== undefined) {
      problems.push({ kind: "line-number", said: Number(number) });
      continue;
    }
    if (ref === undefined) {
      // A tag with one hex character dropped or doubled is still one character away from a shown tag.
      const hex = /^\s*(?:\d+\s+)?([0-9a-fA-F]{7}|[0-9a-fA-F]{9})\s*(?:\|.*)?$/s
        .exec(raw)?.[1]
        ?.toLowerCase();
      const near = hex === undefined ? undefined : oneCharAway(hex, shownTags);
      if (near) problems.push({ kind: "unknown", tag: hex as string, near, said: undefined, likely: [] });
      else problems.push({ kind: "malformed", raw });
      continue;
    }
    const { tag } = ref;
    const shown = shownTags.get(tag);
    if (!shown) {
      unknown(tag, oneCharAway(tag, shownTags), ref.line, raw);
      continue;
    }
    // A tag copied from the row above or below, with this row's number: the two disagree, and
    // neither can be trusted over the other.
    if (ref.line !== undefined && ref.line !== shown.line) {
      problems.push({ kind: "line-mismatch", tag, said: ref.line, was: shown });
      continue;
    }
    if (index.has(tag)) continue;
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

/** The shown line whose tag differs from `tag` in exactly one character, when exactly one does. */
function oneCharAway(tag: string, shownTags: ReadonlyMap<string, ShownLine>): ShownLine | undefined {
  let found: ShownLine | undefined;
  for (const [candidate, line] of shownTags) {
    if (!oneEditApart(tag, candidate)) continue;
    if (found !== undefined) return undefined;
    found = line;
  }
  return found;
}

/**
 * Whether `a` becomes `b` by changing, dropping or inserting exactly one character, or by swapping two
 * neighbouring ones (the typo of a model copying eight hex characters).
 */
function oneEditApart(a: string, b: string): boolean {
  if (a.length === b.length) {
    const diffs: number[] = [];
    for (let i = 0; i < a.length && diffs.length < 3; i++) if (a[i] !== b[i]) diffs.push(i);
    if (diffs.length === 1) return true;
    const [i, j] = diffs as [number, number];
    return diffs.length === 2 && j === i + 1 && a[i] === b[j] && a[j] === b[i];
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long.length - short.length !== 1) return false;
  let i = 0;
  while (i < short.length && short[i] === long[i]) i++;
  return short.slice(i) === long.slice(i + 1);
}

const MAX_LIKELY = 3;
// Past this many shown lines the comparison is skipped: the error still says where tags come from.
const MAX_COMPARED = 50_000;

/**
 * For a tag no read showed (an invented one): the shown lines whose text is most like the new text of
 * the edit that used it, since a replaced line is usually close to its replacement. None when the edit
 * has no new text or nothing is close.
 */
function likelyLines(
  edits: readonly HashlineEdit[],
  raw: string,
  shownTags: ReadonlyMap<string, ShownLine>,
): ShownLine[] {
  const edit = edits.find((e) => tagsOf(e).includes(raw));
  const wanted =
    edit && "new_text" in edit ? edit.new_text.split("\n").find((l) => l.trim() !== "") : undefined;
  if (wanted === undefined || shownTags.size > MAX_COMPARED) return [];
  const scored: { line: ShownLine; score: number }[] = [];
  const byLine = new Map<number, ShownLine>();
  // The latest text shown for each line number: older reads of a line are stale.
  for (const line of shownTags.values()) byLine.set(line.line, line);
  for (const line of byLine.values()) {
    const score = similarity(wanted, line.text);
    if (score >= 0.5) scored.push({ line, score });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.line.line - b.line.line)
    .slice(0, MAX_LIKELY)
    .map((entry) => entry.line);
}
