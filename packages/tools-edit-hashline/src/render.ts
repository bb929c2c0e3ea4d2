import type { LineSource } from "./document.js";
import type { ShownLine } from "./read-state.js";
import { hashline, lineTag, type TextEncodingName } from "./tag.js";

/** Hashlines for a span of lines, and the tags they showed (to remember as read). */
export interface RenderedLines {
  readonly lines: string[];
  readonly shown: [string, ShownLine][];
  /** How many of the rendered lines were cut to maxLineChars. */
  readonly cut: number;
}

/**
 * Render lines `from`..`to` (1-based, inclusive) of `source`, stopping before the output would pass
 * `maxChars` (one line at least). A line longer than `maxLineChars` is cut with a marker; its tag is still
 * computed over the whole line, so it stays usable as an anchor.
 */
export function renderLines(
  source: LineSource,
  from: number,
  to: number,
  encoding: TextEncodingName,
  maxLineChars: number,
  maxChars = Number.POSITIVE_INFINITY,
): RenderedLines {
  const lines: string[] = [];
  const shown: [string, ShownLine][] = [];
  let cut = 0;
  let chars = 0;
  for (let n = from; n <= to; n++) {
    const text = source.text(n - 1);
    const tag = lineTag(n, text, encoding);
    let display = text;
    if (text.length > maxLineChars) {
      display = `${text.slice(0, maxLineChars)}… [line cut: ${text.length} chars]`;
    }
    const row = hashline(n, tag, display);
    chars += row.length + 1;
    if (chars > maxChars && lines.length > 0) break;
    if (display !== text) cut++;
    lines.push(row);
    shown.push([tag, { line: n, text }]);
  }
  return { lines, shown, cut };
}

/** A 1-based inclusive range of lines. */
export interface LineSpan {
  readonly from: number;
  readonly to: number;
}

/** Spans widened by `context` lines each side, clamped to the file, with overlapping ones merged. */
export function windows(spans: readonly LineSpan[], context: number, total: number): LineSpan[] {
  const widened = spans
    .map((span) => ({ from: Math.max(1, span.from - context), to: Math.min(total, span.to + context) }))
    .filter((span) => span.from <= span.to)
    .sort((a, b) => a.from - b.from);
  const merged: LineSpan[] = [];
  for (const span of widened) {
    const last = merged.at(-1);
    if (last && span.from <= last.to + 1)
      merged[merged.length - 1] = { from: last.from, to: Math.max(last.to, span.to) };
    else merged.push(span);
  }
  return merged;
}

export const GAP = "   ⋮";
