import { ToolFailure } from "@bridle/core";
import { EditedLines, type LineEnding, type Segment, splitNewText, type TextDocument } from "./document.js";
import type { HashlineEdit } from "./edit-schema.js";
import type { ShownLine } from "./read-state.js";
import type { LineSpan } from "./render.js";
import { normalizeTag } from "./tag.js";

/** One edit placed on the current file (0-based, inclusive), with its new lines. */
interface Change {
  readonly edit: number;
  readonly insert: boolean;
  readonly start: number;
  readonly end: number;
  readonly lines: readonly string[];
}

export interface AppliedEdits {
  readonly lines: EditedLines;
  /** Where the new or replaced lines are in the new file (1-based; a deletion is an empty span). */
  readonly regions: LineSpan[];
  readonly linesRemoved: number;
  readonly linesAdded: number;
}

// A model sometimes pastes lines back with their hashline prefix, on every line or on the first only.
const ECHOED_LINE = /^ *(\d+) ([0-9a-f]{8}) \|(?: |$)/;

/** What new_text's lines are judged against: the tags this run was shown, and whether to write as sent. */
export interface NewTextRules {
  readonly shown: ReadonlyMap<string, ShownLine>;
  readonly verbatim: boolean;
}

/**
 * new_text's lines, with pasted "<n> <tag> | " prefixes removed: on every line when every line has one,
 * or on those whose number and tag are a pair this run was shown (a pasted read line, not text that
 * happens to look like one). A prefix that is neither is refused, since either reading is a guess;
 * `verbatim` writes it as sent.
 */
function newLines(text: string, repairs: string[], edit: number, rules: NewTextRules): string[] {
  const lines = splitNewText(text);
  const echoed = lines.map((line) => ECHOED_LINE.exec(line));
  const count = echoed.filter(Boolean).length;
  if (count === 0 || rules.verbatim) return lines;
  const pasted = (match: RegExpExecArray | null) =>
    match !== null && rules.shown.get(match[2] as string)?.line === Number(match[1]);
  if (count === lines.length || echoed.every((match) => match === null || pasted(match))) {
    repairs.push(
      `edit ${edit + 1}: removed the "<n> <tag> | " prefix${count === 1 ? "" : "es"} pasted into new_text`,
    );
    return lines.map((line) => line.replace(ECHOED_LINE, ""));
  }
  const at = echoed.findIndex((match) => match !== null && !pasted(match));
  const line = lines[at] as string;
  throw new ToolFailure(
    "InvalidInput",
    `edit ${edit + 1}: line ${at + 1} of new_text begins with ${JSON.stringify((echoed[at] as RegExpExecArray)[0])}, ` +
      `which looks like read_file's "<n> <tag> | " prefix, but no read in this run showed that line with that tag; nothing was written. ` +
      `If it was pasted by mistake, resend new_text without it (${JSON.stringify(line.replace(ECHOED_LINE, "").slice(0, 80))}); ` +
      'if the file should hold that text, resend the same call with "verbatim": true.',
  );
}

/**
 * New text that repeats the unchanged line just above or below it: the slip of a model that copies an
 * anchor line into new_text without replacing it (applied, the line would be there twice). A repeat the
 * file already had is no slip.
 */
export function duplicatedNeighbours(doc: TextDocument, changes: readonly Change[]): string[] {
  const warnings: string[] = [];
  const same = (a: string | undefined, b: string | undefined) =>
    a !== undefined && b !== undefined && a.trim() !== "" && a === b;
  const text = (index: number) => (index >= 0 && index < doc.count ? doc.text(index) : undefined);
  for (const change of changes) {
    if (change.lines.length === 0) continue;
    const aboveAt = change.insert ? change.start : change.start - 1;
    const belowAt = change.end + 1;
    const removed = change.insert ? [] : [text(change.start), text(change.end)];
    const first = change.lines[0];
    const last = change.lines.at(-1);
    if (same(first, text(aboveAt)) && !same(removed[0], text(aboveAt))) {
      warnings.push(
        `${describe(change)}: the first new line repeats line ${aboveAt + 1} just above it ` +
          `(${JSON.stringify(first?.slice(0, 80))}), which the edit does not replace`,
      );
    }
    if (same(last, text(belowAt)) && !same(removed[1], text(belowAt))) {
      warnings.push(
        `${describe(change)}: the last new line repeats line ${belowAt + 1} just below it ` +
          `(${JSON.stringify(last?.slice(0, 80))}), which the edit does not replace`,
      );
    }
  }
  return warnings;
}

/** Place every edit on the file, refusing overlaps and ranges that run backwards. */
export function planEdits(
  edits: readonly HashlineEdit[],
  index: ReadonlyMap<string, number>,
  repairs: string[],
  rules: NewTextRules,
): Change[] {
  const at = (raw: string): number => index.get(normalizeTag(raw) as string) as number;
  const place = (edit: HashlineEdit, i: number): Change => {
    switch (edit.op) {
      case "replace_line":
        return {
          edit: i,
          insert: false,
          start: at(edit.tag),
          end: at(edit.tag),
          lines: newLines(edit.new_text, repairs, i, rules),
        };
      case "insert_after":
        return {
          edit: i,
          insert: true,
          start: at(edit.tag),
          end: at(edit.tag),
          lines: newLines(edit.new_text, repairs, i, rules),
        };
      case "delete_line":
        return { edit: i, insert: false, start: at(edit.tag), end: at(edit.tag), lines: [] };
      case "replace_range": {
        const start = at(edit.start_tag);
        const end = at(edit.end_tag);
        if (end < start) {
          throw new ToolFailure(
            "InvalidInput",
            `edit ${i + 1}: end_tag (line ${end + 1}) comes before start_tag (line ${start + 1}); nothing was written`,
          );
        }
        const lines = edit.new_text === "" ? [] : newLines(edit.new_text, repairs, i, rules);
        return { edit: i, insert: false, start, end, lines };
      }
    }
  };
  const changes = edits.map(place);
  assertNoOverlap(changes);
  return changes;
}

function describe(change: Change): string {
  const where =
    change.start === change.end ? `line ${change.start + 1}` : `lines ${change.start + 1}-${change.end + 1}`;
  return `edit ${change.edit + 1} (${change.insert ? "insert after" : "changes"} ${where})`;
}

function assertNoOverlap(changes: readonly Change[]): void {
  const spans = changes.filter((c) => !c.insert).sort((a, b) => a.start - b.start);
  const problems: string[] = [];
  for (let i = 1; i < spans.length; i++) {
    const prev = spans[i - 1] as Change;
    const next = spans[i] as Change;
    if (next.start <= prev.end) problems.push(`${describe(prev)} and ${describe(next)} overlap`);
  }
  for (const insert of changes.filter((c) => c.insert)) {
    const inside = spans.find((span) => insert.start >= span.start && insert.start < span.end);
    if (inside) problems.push(`${describe(insert)} lands inside ${describe(inside)}`);
  }
  if (problems.length > 0) {
    throw new ToolFailure(
      "InvalidInput",
      `edits overlap, nothing was written: ${problems.slice(0, 10).join("; ")}. ` +
        "Each line may be changed by one edit; merge overlapping edits into one replace_range.",
    );
  }
}

/** The file as the edits leave it, with the regions that changed. Untouched lines keep their own endings. */
export function applyChanges(doc: TextDocument, changes: readonly Change[]): AppliedEdits {
  const spans = new Map<number, Change>();
  const inserts = new Map<number, Change[]>();
  for (const change of changes) {
    if (!change.insert) {
      spans.set(change.start, change);
      continue;
    }
    const list = inserts.get(change.start);
    if (list) list.push(change);
    else inserts.set(change.start, [change]);
  }
  const points = [...new Set([...spans.keys(), ...inserts.keys()])].sort((a, b) => a - b);
  const segments: Segment[] = [];
  const regions: LineSpan[] = [];
  let count = 0;
  let linesRemoved = 0;
  let linesAdded = 0;
  const keep = (from: number, to: number) => {
    if (to <= from) return;
    segments.push({ kind: "kept", from, to });
    count += to - from;
  };
  // A replaced span keeps the ending its last line had (a mixed file stays as mixed as it was).
  const add = (change: Change, eol: LineEnding) => {
    if (change.lines.length > 0) segments.push({ kind: "new", texts: change.lines, eol });
    regions.push({ from: count + 1, to: count + change.lines.length });
    count += change.lines.length;
    linesAdded += change.lines.length;
  };
  const addInserts = (after: number) => {
    for (const change of inserts.get(after) ?? []) add(change, doc.eol);
  };
  let next = 0;
  for (const point of points) {
    if (point < next) continue;
    const span = spans.get(point);
    if (span) {
      keep(next, point);
      add(span, doc.eolOf(span.end) || doc.eol);
      linesRemoved += span.end - span.start + 1;
      addInserts(span.end);
      next = span.end + 1;
    } else {
      keep(next, point + 1);
      addInserts(point);
      next = point + 1;
    }
  }
  keep(next, doc.count);
  return { lines: new EditedLines(doc, segments), regions, linesRemoved, linesAdded };
}

/** In a file that is not UTF-8, new text must fit its one-byte-per-character encoding. */
export function assertEncodable(doc: TextDocument, changes: readonly Change[]): void {
  if (doc.encoding === "utf8") return;
  for (const change of changes) {
    const bad = change.lines.find((line) => /[\u0100-\uffff]/.test(line));
    if (bad !== undefined) {
      const char = /[\u0100-\uffff]/.exec(bad)?.[0] ?? "";
      throw new ToolFailure(
        "InvalidInput",
        `edit ${change.edit + 1}: this file is not UTF-8 (its bytes are shown one character each), and ` +
          `new_text holds ${JSON.stringify(char)}, which has no single byte; nothing was written. ` +
          "Use only characters U+0000-U+00FF in this file.",
      );
    }
  }
}

export type { Change };
