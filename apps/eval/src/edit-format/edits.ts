// The correct edit for a task in each format, and the same edit with one of the mistakes real models make.
// Everything is computed from what a model would have: the task's words, the file as read_file showed it
// (line numbers, hashline tags) and the fix it has in mind (the original line).
import type { EditTask } from "./tasks.js";

export const EDIT_FORMATS = ["replace", "hashline", "apply_patch"] as const;
export type EditFormatName = (typeof EDIT_FORMATS)[number];

export const MISTAKE_KINDS = [
  "whitespace_drift",
  "stale_tag",
  "invented_tag",
  "escaped_strings",
  "wrong_line_numbers",
  "ambiguous_anchor",
  "bad_patch_context",
  "pasted_prefix",
  "literal_tab",
  "literal_newline",
  "escape_new_only",
  "context_in_new_only",
  "swapped_tag",
  "line_number_tag",
] as const;
export type MistakeKind = (typeof MISTAKE_KINDS)[number];

/** The mistakes a format can suffer: a replace call quotes no tags, a hashline call quotes no text. */
export const MISTAKES_BY_FORMAT: Readonly<Record<EditFormatName, readonly MistakeKind[]>> = {
  replace: [
    "whitespace_drift",
    "escaped_strings",
    "wrong_line_numbers",
    "ambiguous_anchor",
    "literal_tab",
    "literal_newline",
    "escape_new_only",
    "context_in_new_only",
  ],
  hashline: [
    "stale_tag",
    "invented_tag",
    "escaped_strings",
    "wrong_line_numbers",
    "pasted_prefix",
    "literal_tab",
    "literal_newline",
    "swapped_tag",
    "line_number_tag",
  ],
  apply_patch: [
    "whitespace_drift",
    "escaped_strings",
    "wrong_line_numbers",
    "ambiguous_anchor",
    "bad_patch_context",
  ],
};

/** A line as the model saw it in a read: its number (1-based), text, and tag when the read showed one. */
export interface SeenLine {
  readonly number: number;
  readonly text: string;
  readonly tag?: string;
}

export interface EditCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** The mistake actually made (undefined when the edit is correct, or the asked mistake cannot apply here). */
  readonly mistake: MistakeKind | undefined;
}

/** What a mistake needs beyond the edit: the tag a stale read would have shown, a random invented tag. */
export interface MistakeHelpers {
  staleTag(lineNumber: number, text: string): string;
  inventedTag(): string;
}

/** The change in terms of the file as read: lines [start, end) (0-based) become `replacement`. */
interface Change {
  readonly start: number;
  readonly end: number;
  readonly replacement: readonly string[];
}

function changeOf(task: EditTask): Change {
  const { line, original, mutated } = task.mutation;
  return mutated === undefined
    ? { start: line, end: line, replacement: [original] }
    : { start: line, end: line + 1, replacement: [original] };
}

/** The edit call for `task` in `format`, with `mistake` made where it can be. */
export function editCall(
  task: EditTask,
  format: EditFormatName,
  seen: readonly SeenLine[],
  mistake: MistakeKind | undefined,
  helpers: MistakeHelpers,
): EditCall {
  const lines = seen.map((l) => l.text);
  const change = changeOf(task);
  const wanted = mistake && MISTAKES_BY_FORMAT[format].includes(mistake) ? mistake : undefined;
  if (format === "replace") return replaceCall(task.path, lines, change, wanted);
  if (format === "hashline") return hashlineCall(task.path, seen, change, wanted, helpers);
  return patchCall(task.path, lines, change, wanted);
}

function replaceCall(
  path: string,
  lines: readonly string[],
  change: Change,
  mistake: MistakeKind | undefined,
) {
  const text = lines.join("\n");
  if (mistake === "ambiguous_anchor") {
    const ambiguous = ambiguousReplace(lines, change);
    if (ambiguous) return { name: "edit_file", arguments: { path, ...ambiguous }, mistake };
  }
  if (mistake === "context_in_new_only") {
    const kept = contextInNewOnly(lines, change);
    if (kept) return { name: "edit_file", arguments: { path, ...kept }, mistake };
  }
  // The smallest block of whole lines around the change that occurs once in the file.
  let start = change.start === change.end ? Math.max(0, change.start - 1) : change.start;
  let end = Math.max(change.end, start + 1);
  // A literal \n beside real line breaks needs a quote of three lines.
  if (mistake === "literal_newline") end = Math.min(lines.length, Math.max(end, start + 3));
  while (occurrences(text, lines.slice(start, end).join("\n")) > 1 && (start > 0 || end < lines.length)) {
    if (end < lines.length) end++;
    if (occurrences(text, lines.slice(start, end).join("\n")) > 1 && start > 0) start--;
  }
  const oldLines = lines.slice(start, end);
  const newLines = [
    ...lines.slice(start, change.start),
    ...change.replacement,
    ...lines.slice(change.end, end),
  ];
  let oldString = oldLines.join("\n");
  let newString = newLines.join("\n");
  let made: MistakeKind | undefined;
  if (mistake === "whitespace_drift") {
    oldString = oldLines.map(driftIndent).join("\n");
    made = mistake;
  } else if (mistake === "escaped_strings") {
    [oldString, newString] = [escapeLines(oldLines), escapeLines(newLines)];
    made = oldString === oldLines.join("\n") ? undefined : mistake;
  } else if (mistake === "wrong_line_numbers") {
    // The read's gutter pasted into the quote, as models do after reading numbered output.
    oldString = oldLines.map((line, i) => `${start + i + 1}\t${line}`).join("\n");
    made = mistake;
  } else if (mistake === "literal_tab") {
    const slipped = tabSlip(newLines, change.start - start);
    if (slipped) [newString, made] = [slipped, mistake];
  } else if (mistake === "literal_newline") {
    const slipped = newlineSlip(newLines);
    if (slipped) [newString, made] = [slipped, mistake];
  } else if (mistake === "escape_new_only") {
    // Only new_string went through one JSON encoding too many; old_string matches as it is.
    const escaped = escapeLines(newLines);
    if (escaped !== newLines.join("\n")) [newString, made] = [escaped, mistake];
  }
  return {
    name: "edit_file",
    arguments: { path, old_string: oldString, new_string: newString },
    mistake: made,
  };
}

/** A quote of just the changed line's trimmed text (or the part that changed) when that occurs more than once. */
function ambiguousReplace(
  lines: readonly string[],
  change: Change,
): { old_string: string; new_string: string } | undefined {
  if (change.start === change.end) return undefined;
  const text = lines.join("\n");
  const before = lines[change.start] as string;
  const after = change.replacement[0] as string;
  let from = 0;
  while (before[from] === after[from]) from++;
  let back = 0;
  while (back < before.length - from && before.at(-1 - back) === after.at(-1 - back)) back++;
  for (let pad = 0; pad <= 12; pad++) {
    const a = Math.max(0, from - pad);
    const oldString = before.slice(a, before.length - Math.max(0, back - pad));
    if (oldString.trim().length > 0 && occurrences(text, oldString) > 1) {
      return { old_string: oldString, new_string: after.slice(a, after.length - Math.max(0, back - pad)) };
    }
  }
  return undefined;
}

function hashlineCall(
  path: string,
  seen: readonly SeenLine[],
  change: Change,
  mistake: MistakeKind | undefined,
  helpers: MistakeHelpers,
) {
  const insert = change.start === change.end;
  const anchor = seen[insert ? change.start - 1 : change.start] as SeenLine;
  let tag = anchor.tag ?? "";
  let newText = change.replacement.join("\n");
  let made: MistakeKind | undefined = mistake;
  if (mistake === "stale_tag") tag = helpers.staleTag(anchor.number + 1, anchor.text);
  else if (mistake === "invented_tag") tag = helpers.inventedTag();
  else if (mistake === "wrong_line_numbers") tag = `${anchor.number + 1} ${tag}`;
  else if (mistake === "swapped_tag") tag = swapTwo(tag);
  else if (mistake === "line_number_tag") tag = String(anchor.number);
  else if (mistake === "escaped_strings") {
    newText = escapeLines(change.replacement);
    if (newText === change.replacement.join("\n")) made = undefined;
  } else if (mistake === "literal_tab") {
    const slipped = tabSlip(change.replacement, 0);
    if (slipped) newText = slipped;
    else made = undefined;
  } else if (mistake === "pasted_prefix" || mistake === "literal_newline") {
    const wide = widerHashline(seen, change, mistake);
    if (wide) return { name: "edit_file", arguments: { path, edits: [wide] }, mistake };
    made = undefined;
  } else made = undefined;
  const edit = insert
    ? { op: "insert_after", tag, new_text: newText }
    : { op: "replace_line", tag, new_text: newText };
  return { name: "edit_file", arguments: { path, edits: [edit] }, mistake: made };
}

/**
 * The same change as a replace_range over more lines than it needs, which is how a model that pastes
 * several read lines writes it: with the read's "<n> <tag> | " prefix left on the first line only, or
 * with one of its line breaks written as the two characters \n beside real ones.
 */
function widerHashline(
  seen: readonly SeenLine[],
  change: Change,
  mistake: "pasted_prefix" | "literal_newline",
) {
  const insert = change.start === change.end;
  const span = mistake === "pasted_prefix" ? 2 : 3;
  // The read lines around the change, the new line in place of the one it fixes (or after its anchor).
  const at = change.start;
  const before = insert ? 1 : 0;
  // A span that ends on a blank line cannot be written as new_text (one trailing \n is dropped), so the
  // span moves up until it ends on text, as a model's paste would.
  for (let up = 0; up < span; up++) {
    const from = at - before - up;
    const to = from + span - (insert ? 1 : 0) - 1;
    const first = seen[from];
    const last = seen[to];
    if (from < 0 || !first || !last) continue;
    const texts = seen.slice(from, to + 1).map((l) => l.text);
    if (at - from > texts.length) continue;
    texts.splice(at - from, insert ? 0 : 1, ...change.replacement);
    if (texts.at(-1)?.trim() === "") continue;
    const newText =
      mistake === "pasted_prefix"
        ? [`${String(first.number).padStart(4)} ${first.tag} | ${texts[0]}`, ...texts.slice(1)].join("\n")
        : (newlineSlip(texts) as string);
    return { op: "replace_range", start_tag: first.tag, end_tag: last.tag, new_text: newText };
  }
  return undefined;
}

/**
 * old_string with only the changed lines, new_string keeping the line above as context too: applied as
 * sent, that line would be there twice.
 */
function contextInNewOnly(
  lines: readonly string[],
  change: Change,
): { old_string: string; new_string: string } | undefined {
  const text = lines.join("\n");
  const start = change.start;
  const above = lines[start - 1];
  if (start < 1 || above === undefined || above.trim() === "") return undefined;
  let end = Math.max(change.end, start + 1);
  while (occurrences(text, lines.slice(start, end).join("\n")) > 1 && end < lines.length) end++;
  const oldLines = lines.slice(start, end);
  if (oldLines.join("").trim() === "") return undefined;
  const newLines = [above, ...change.replacement, ...lines.slice(change.end, end)];
  return { old_string: oldLines.join("\n"), new_string: newLines.join("\n") };
}

/** Line `at` (or the first indented line) with its indentation written as literal \t sequences. */
function tabSlip(lines: readonly string[], at: number): string | undefined {
  const order = [at, ...lines.keys()];
  const index = order.find((i) => /^[ \t]+\S/.test(lines[i] ?? ""));
  if (index === undefined) return undefined;
  const line = lines[index] as string;
  const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
  const slipped = `${"\\t".repeat(Math.max(1, Math.floor(indent.length / 2)))}${line.slice(indent.length)}`;
  return lines.map((l, i) => (i === index ? slipped : l)).join("\n");
}

/** The lines joined with real breaks but for the last, written as the two characters \n. */
function newlineSlip(lines: readonly string[]): string | undefined {
  if (lines.length < 3) return undefined;
  return `${lines.slice(0, -1).join("\n")}\\n${lines.at(-1)}`;
}

/** The tag with two neighbouring characters that differ swapped. */
function swapTwo(tag: string): string {
  for (let i = tag.length - 2; i >= 0; i--) {
    if (tag[i] !== tag[i + 1]) return `${tag.slice(0, i)}${tag[i + 1]}${tag[i]}${tag.slice(i + 2)}`;
  }
  return tag;
}

const CONTEXT = 3;

function patchCall(path: string, lines: readonly string[], change: Change, mistake: MistakeKind | undefined) {
  const before = lines.slice(Math.max(0, change.start - CONTEXT), change.start);
  const removed = lines.slice(change.start, change.end);
  const after = lines.slice(change.end, change.end + CONTEXT);
  let made: MistakeKind | undefined = mistake;
  let header = "@@";
  let context = { before: [...before], after: [...after] };
  let removedOut = [...removed];
  let added = [...change.replacement];
  if (mistake === "whitespace_drift") {
    context = { before: before.map(driftIndent), after: after.map(driftIndent) };
    removedOut = removed.map(driftIndent);
  } else if (mistake === "escaped_strings") {
    context = { before: before.map(escapeQuotes), after: after.map(escapeQuotes) };
    removedOut = removed.map(escapeQuotes);
    added = added.map(escapeQuotes);
    const quoted = [...context.before, ...removedOut, ...added, ...context.after];
    if (quoted.join("\n") === [...before, ...removed, ...change.replacement, ...after].join("\n"))
      made = undefined;
  } else if (mistake === "wrong_line_numbers") {
    // A unified-diff header with numbers that are off, instead of V4A's bare @@.
    const at = change.start + 1 + 7;
    header = `@@ -${at},${before.length + removed.length + after.length} +${at},${before.length + added.length + after.length} @@`;
  } else if (mistake === "ambiguous_anchor" && removed.length === 0) {
    // An insertion with no context at all: nothing says where it goes.
    context = { before: [], after: [] };
  } else if (mistake === "bad_patch_context" && before.length > 0) {
    // One context line misremembered: the model quotes a line from elsewhere in the file.
    const far = lines[(change.start + Math.floor(lines.length / 2)) % lines.length] ?? "";
    context = { before: [far, ...before.slice(1)], after };
  } else {
    made = undefined;
  }
  const body = [
    header,
    ...context.before.map((l) => ` ${l}`),
    ...removedOut.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    ...context.after.map((l) => ` ${l}`),
  ];
  const input = ["*** Begin Patch", `*** Update File: ${path}`, ...body, "*** End Patch"].join("\n");
  return { name: "apply_patch", arguments: { input }, mistake: made };
}

/** One more space of indentation (or two where there was none): the quote no longer matches. */
function driftIndent(line: string): string {
  const indent = /^[ \t]*/.exec(line)?.[0] ?? "";
  return indent.length === 0 ? `  ${line}` : `${indent} ${line.slice(indent.length)}`;
}

/** Quotes backslash-escaped, as text that went through one JSON encoding too many. */
function escapeQuotes(line: string): string {
  return line.replace(/\\/g, "\\\\").replace(/(['"])/g, "\\$1");
}

/** Escaped quotes, or, on lines without any, newlines written as the two characters \n. */
function escapeLines(lines: readonly string[]): string {
  const escaped = lines.map(escapeQuotes);
  if (escaped.some((line, i) => line !== lines[i])) return escaped.join("\n");
  return lines.join("\\n");
}

function occurrences(text: string, needle: string): number {
  if (!needle) return 0;
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) count++;
  return count;
}
