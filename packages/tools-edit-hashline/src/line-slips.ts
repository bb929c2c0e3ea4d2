import { ToolFailure } from "@bridle/core";
import { quotesRestoreOld } from "@bridle/tools-fs";
import type { Change } from "./apply-edits.js";
import type { LineSource } from "./document.js";
import { lineTag, type TextEncodingName } from "./tag.js";

// How much of a replaced line new_text must start with to be that line retyped.
const TELLING = 8;

/**
 * Refuse replacements whose new text gives away a slip against the lines they replace or border: a range
 * one line too long (the line it drops is the one new_text stops short of) or too short (new_text's
 * edge line is the next line, changed, which would then be there twice), the indentation left off the
 * line it replaces, typographic quotes for the line's straight ones. Applied, each would be written
 * without a word; refused, the message names the lines and tags that make the call right.
 * `verbatim: true` skips this check, for the rare call that means exactly that.
 */
export function assertNoLineSlips(
  doc: LineSource,
  changes: readonly Change[],
  encoding: TextEncodingName,
): void {
  const tag = (index: number) => `\`${lineTag(index + 1, doc.text(index), encoding)}\``;
  const problems = changes.flatMap((change) => {
    if (change.insert || change.lines.length === 0) return [];
    return [
      rangeTooLong(doc, change, tag),
      rangeTooShort(doc, change, tag),
      indentationLeftOff(doc, change),
      typographicQuotes(doc, change),
    ].filter((found): found is string => found !== undefined);
  });
  if (problems.length === 0) return;
  throw new ToolFailure(
    "InvalidInput",
    `${problems.slice(0, 5).join("; ")}. Nothing was written. If the file should hold exactly this, resend the same call with "verbatim": true.`,
  );
}

type TagOf = (index: number) => string;

const where = (change: Change) =>
  `edit ${change.edit + 1} (${change.end > change.start ? `lines ${change.start + 1}-${change.end + 1}` : `line ${change.start + 1}`})`;
const quote = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
const blank = (text: string | undefined) => text === undefined || text.trim() === "";

/** new_text ends with the range's next-to-last line as it is and leaves the last one out (or the same at the start). */
function rangeTooLong(doc: LineSource, change: Change, tag: TagOf): string | undefined {
  if (change.end - change.start < 1) return undefined;
  const lines = change.lines;
  const has = (text: string) => lines.includes(text);
  const last = doc.text(change.end);
  const beforeLast = doc.text(change.end - 1);
  if (!blank(beforeLast) && lines.at(-1) === beforeLast && !blank(last) && !has(last)) {
    return (
      `${where(change)}: new_text ends with line ${change.end} as it is and leaves out line ${change.end + 1} (${quote(last)}), which would be deleted. ` +
      `If line ${change.end + 1} should stay, end the range at line ${change.end} (end_tag ${tag(change.end - 1)}); ` +
      `to delete it, say so with delete_line (tag ${tag(change.end)})`
    );
  }
  const first = doc.text(change.start);
  const second = doc.text(change.start + 1);
  if (!blank(second) && lines[0] === second && !blank(first) && !has(first)) {
    return (
      `${where(change)}: new_text starts with line ${change.start + 2} as it is and leaves out line ${change.start + 1} (${quote(first)}), which would be deleted. ` +
      `If line ${change.start + 1} should stay, start the range at line ${change.start + 2} (start_tag ${tag(change.start + 1)}), keeping its end at line ${change.end + 1}; ` +
      `to delete it, say so with delete_line (tag ${tag(change.start)})`
    );
  }
  return undefined;
}

/** new_text's edge line is the neighbouring line (which the edit keeps) with more written after it. */
function rangeTooShort(doc: LineSource, change: Change, tag: TagOf): string | undefined {
  const lines = change.lines;
  const below = change.end + 1 < doc.count ? doc.text(change.end + 1) : undefined;
  const last = lines.at(-1) as string;
  if (below !== undefined && extends_(last, below) && lines.length > 1) {
    return (
      `${where(change)}: the last line of new_text is line ${change.end + 2} (${quote(below)}) with more after it, but the edit does not replace line ${change.end + 2}: applied, the file would hold both. ` +
      `If new_text replaces it, widen the edit to it (replace_range, end_tag ${tag(change.end + 1)}); if it is a new line, write it differently or resend with "verbatim": true`
    );
  }
  const above = change.start > 0 ? doc.text(change.start - 1) : undefined;
  const first = lines[0] as string;
  if (above !== undefined && extends_(first, above) && lines.length > 1) {
    return (
      `${where(change)}: the first line of new_text is line ${change.start} (${quote(above)}) with more after it, but the edit does not replace line ${change.start}: applied, the file would hold both. ` +
      `If new_text replaces it, widen the edit to it (replace_range, start_tag ${tag(change.start - 1)}); if it is a new line, write it differently or resend with "verbatim": true`
    );
  }
  return undefined;
}

/** `line` is `neighbour` with text added at its end (a retyped neighbour, not a line of its own). */
function extends_(line: string, neighbour: string): boolean {
  const kept = neighbour.trimEnd();
  // Even a lone bracket: `} else {` over a kept `}` may be meant, and verbatim says so; a guess may not.
  return kept.trim() !== "" && line.trimEnd().length > kept.length && line.startsWith(kept);
}

/** The replaced line is indented and new_text retypes it at column 0. */
function indentationLeftOff(doc: LineSource, change: Change): string | undefined {
  const old = doc.text(change.start);
  const indent = /^[ \t]+/.exec(old)?.[0];
  const first = change.lines[0] as string;
  const body = old.trim();
  if (indent === undefined || /^\s/.test(first) || body === "") return undefined;
  if (!first.startsWith(body.slice(0, TELLING))) return undefined;
  return (
    `${where(change)}: line 1 of new_text starts at column 0, where line ${change.start + 1}, which it retypes, is indented (${JSON.stringify(indent)}). ` +
    `Resend it with the indentation: ${quote(indent + first)}`
  );
}

function typographicQuotes(doc: LineSource, change: Change): string | undefined {
  const old: string[] = [];
  for (let i = change.start; i <= change.end; i++) old.push(doc.text(i));
  const found = quotesRestoreOld(old.join("\n"), change.lines.join("\n"));
  if (found === undefined) return undefined;
  const line = change.lines[found.line] as string;
  return (
    `${where(change)}: new_text has typographic quotes (${found.sequences.join(" ")}) where the text it replaces has straight ones, ` +
    `as in ${quote(line.slice(Math.max(0, found.at - 30), found.at + 30))} (line ${found.line + 1} of new_text); resend it with the straight quotes`
  );
}
