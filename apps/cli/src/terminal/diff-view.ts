// An edit's change drawn as a unified diff under its tool line, for every edit tool that gives its result
// core's `details.diffs` (edit_file, write_file, apply_patch, hashline edits, MultiEdit), and a shell
// command's changes, which the recipe gives its result in the same shape. Hunks hold changed
// lines only, so the diff has no context lines (`diff -U0`). Bounded: a rewrite shows its first lines and
// says how many it left out, rather than scrolling the rest of the run away.
import type { FileDiff } from "@bridle/core";
import { visible } from "./display-text.js";

/** Changed lines shown for one tool result, over all its files. */
export const MAX_DIFF_VIEW_LINES = 60;
/** Characters shown of one line; the rest is cut with a mark. */
const MAX_LINE_CHARS = 300;

const paint = (on: boolean, code: string, text: string) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);

/** A line of the file as a person reads it: its control characters escaped, a CRLF file's \r dropped. */
function shown(line: string): string {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  return visible(text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text);
}

/** `@@ -a,n +b,m @@`, where a side with no lines names the line before it, as unified diffs do. */
function hunkHeader(oldStart: number, removed: number, newStart: number, added: number): string {
  const side = (start: number, count: number) =>
    count === 1 ? `${start}` : `${count === 0 ? Math.max(0, start - 1) : start},${count}`;
  return `@@ -${side(oldStart, removed)} +${side(newStart, added)} @@`;
}

/**
 * The diffs of one tool result as text ending in a newline (empty when there is nothing to draw):
 * coloured when `colour`, plain otherwise.
 */
export function diffView(diffs: readonly FileDiff[], colour: boolean): string {
  const out: string[] = [];
  let budget = MAX_DIFF_VIEW_LINES;
  let left = 0;
  for (const diff of diffs) {
    if (diff.hunks.length === 0 && diff.change === "update" && diff.movedTo === undefined) continue;
    const from = diff.change === "add" ? "/dev/null" : `a/${diff.path}`;
    const to = diff.change === "delete" ? "/dev/null" : `b/${diff.movedTo ?? diff.path}`;
    out.push(paint(colour, "1", `--- ${visible(from)}`), paint(colour, "1", `+++ ${visible(to)}`));
    for (const hunk of diff.hunks) {
      const size = hunk.removed.length + hunk.added.length;
      if (budget <= 0) {
        left += size;
        continue;
      }
      out.push(
        paint(colour, "36", hunkHeader(hunk.oldStart, hunk.removed.length, hunk.newStart, hunk.added.length)),
      );
      for (const [mark, lines, code] of [
        ["-", hunk.removed, "31"],
        ["+", hunk.added, "32"],
      ] as const) {
        const take = lines.slice(0, Math.max(0, budget));
        for (const line of take) out.push(paint(colour, code, `${mark}${shown(line)}`));
        budget -= take.length;
        left += lines.length - take.length;
      }
    }
    left += diff.omittedLines;
  }
  if (left > 0) out.push(paint(colour, "2", `… ${left} more changed line${left === 1 ? "" : "s"} not shown`));
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

const REASONS: Readonly<Record<string, string>> = {
  binary: "binary, not shown",
  secret: "may hold a secret, not shown",
  "too large": "too large to show",
  "not kept": "its earlier content was not kept",
  link: "a link",
  mode: "only its mode changed",
};
const CHANGES: Readonly<Record<string, string>> = { add: "added", update: "changed", delete: "removed" };

/**
 * What a command's `details.changed_files` (@bridle/coding's CommandChanges, beside its `details.diffs`)
 * says beyond the diffs: the files named without their lines, and how many more changed than are shown.
 * Empty when the result has none. Details are unknown data: read field by field.
 */
export function changedFilesView(details: unknown, diffsShown: number, colour: boolean): string {
  const changed =
    details !== null && typeof details === "object"
      ? (details as { changed_files?: unknown }).changed_files
      : undefined;
  if (changed === null || typeof changed !== "object") return "";
  const { count, unshown, truncated } = changed as {
    count?: unknown;
    unshown?: unknown;
    truncated?: unknown;
  };
  const named = Array.isArray(unshown) ? unshown : [];
  const out: string[] = [];
  for (const item of named) {
    const { path, change, reason } = (item ?? {}) as { path?: unknown; change?: unknown; reason?: unknown };
    if (typeof path !== "string") continue;
    const what = CHANGES[String(change)] ?? "changed";
    out.push(`${what} ${shown(path)} (${REASONS[String(reason)] ?? "not shown"})`);
  }
  const left = typeof count === "number" ? count - diffsShown - out.length : 0;
  if (left > 0) {
    const all = typeof count === "number" ? count : left;
    out.push(`… ${left} more file${left === 1 ? "" : "s"} changed (${all} in all)`);
  }
  if (truncated === true)
    out.push("(the workspace has more files than one listing holds: not all were seen)");
  return out.length === 0 ? "" : `${out.map((line) => paint(colour, "2", line)).join("\n")}\n`;
}
