import { ToolFailure } from "@bridle/core";
import { closestHint } from "./edit-hints.js";
import { assertNoDuplicatedNeighbour, assertNoSlips } from "./edit-slips.js";
import { type TextFormat, withLineEndings } from "./text-format.js";

export interface EditPlan {
  /** The file's new text (decoded; encode it with the file's format). */
  readonly text: string;
  /** Where each replacement starts in the new text. */
  readonly starts: readonly number[];
  readonly search: string;
  readonly replacement: string;
  /** What was repaired to find the match (shown to the model). */
  readonly repairs: readonly string[];
}

interface Candidate {
  readonly search: string;
  readonly replacement: string;
  readonly repairs: readonly string[];
}

// Every place, up to a bound, so the one the model meant is among them whatever its position.
const MAX_LISTED_LINES = 60;

/** One exact-replace edit, as edit_file and every tool built like it (MultiEdit) take it. */
export interface TextEdit {
  readonly oldString: string;
  readonly newString: string;
  readonly replaceAll?: boolean;
}

/**
 * edit_file's whole rule for one replacement on decoded text: the matcher and its repairs (planEdit),
 * then the refusals of slips in new_string that no match can catch (escaped once too often; a context
 * line kept in new_string but not in old_string). A tool that replaces text calls this, not a matcher of
 * its own, so every such tool recovers from the same mistakes and refuses the same ones.
 */
export function planTextEdit(text: string, format: TextFormat, edit: TextEdit): EditPlan {
  const plan = planEdit(text, format, edit.oldString, edit.newString, edit.replaceAll ?? false);
  assertNoSlips(text, toOld(plan, text));
  assertNoDuplicatedNeighbour(plan);
  return plan;
}

/** The plan with its first start as an offset in the text before the edit (where the slips are judged). */
function toOld(plan: EditPlan, text: string): EditPlan {
  const first = plan.starts[0];
  return first === undefined ? plan : { ...plan, text, starts: [first] };
}

/**
 * Decide one exact-replace edit on decoded text. An exact match wins; in a CRLF file, old_string's LF line
 * breaks may stand for CRLF. Only when nothing matches is a JSON-escaped old_string (`\n`, `\"` written
 * out) unescaped, and that repair is kept only when it matches exactly one place.
 */
export function planEdit(
  text: string,
  format: TextFormat,
  oldString: string,
  newString: string,
  replaceAll: boolean,
): EditPlan {
  if (oldString === "") {
    throw new ToolFailure(
      "InvalidInput",
      "old_string is empty. Give the exact text to replace (use write_file to create or overwrite a whole file).",
    );
  }
  if (oldString === newString) {
    throw new ToolFailure(
      "InvalidInput",
      "old_string and new_string are the same; there is nothing to change.",
    );
  }
  const crlfFile = text.includes("\r\n");
  for (const candidate of lineEndingVariants(
    { search: oldString, replacement: newString, repairs: [] },
    crlfFile,
    format,
  )) {
    const starts = occurrences(text, candidate.search);
    if (starts.length === 0) continue;
    if (starts.length > 1 && !replaceAll) {
      const lines = starts.slice(0, MAX_LISTED_LINES).map((at) => lineOf(text, at));
      const more = starts.length > MAX_LISTED_LINES ? ` and ${starts.length - MAX_LISTED_LINES} more` : "";
      throw new ToolFailure(
        "InvalidInput",
        `old_string matches ${starts.length} places (lines ${lines.join(", ")}${more}). Include more surrounding lines so it matches exactly one, or set replace_all: true to change every one.`,
        { details: { matches: starts.length, lines } },
      );
    }
    return apply(text, format, candidate, starts);
  }

  const unescaped = unescapeJson(oldString);
  if (unescaped !== undefined && unescaped !== oldString) {
    const replacement = unescapeJson(newString) ?? newString;
    const repaired = {
      search: unescaped,
      replacement,
      repairs: ["old_string and new_string were JSON-unescaped"],
    };
    for (const candidate of lineEndingVariants(repaired, crlfFile, format)) {
      const starts = occurrences(text, candidate.search);
      if (starts.length === 1) return apply(text, format, candidate, starts);
      if (starts.length > 1) {
        throw new ToolFailure(
          "InvalidInput",
          `old_string was not found as written. Unescaped (\\n as a line break, \\" as a quote) it matches ${starts.length} places, so it was not applied. Send the text unescaped, with enough surrounding lines to match one place.`,
        );
      }
    }
  }
  const numbered = withoutLineNumbers(oldString, newString);
  if (numbered !== undefined) {
    for (const candidate of lineEndingVariants(numbered.candidate, crlfFile, format)) {
      // The numbers say where the text is: it is used there or nowhere, whatever else matches.
      const at = occurrences(text, candidate.search).find(
        (start) => (start === 0 || text[start - 1] === "\n") && lineOf(text, start) === numbered.line,
      );
      if (at !== undefined) return apply(text, format, candidate, [at]);
    }
  }
  throw new ToolFailure("InvalidInput", notFoundMessage(text, oldString));
}

const NUMBER_PREFIX = /^ *(\d+)\t/;

/**
 * old_string (and new_string) copied with read_file's `<number><TAB>` prefixes: the strings without them
 * and the line the first prefix names, when every line of old_string carries one, numbered consecutively,
 * and new_string's lines carry one on every line or on none.
 */
function withoutLineNumbers(
  oldString: string,
  newString: string,
): { candidate: Candidate; line: number } | undefined {
  const strip = (value: string, consecutive: boolean): { text: string; first: number } | undefined => {
    const lines = value.split("\n");
    const last = lines.length > 1 && lines.at(-1) === "" ? lines.pop() : undefined;
    let first: number | undefined;
    const out: string[] = [];
    for (const [i, line] of lines.entries()) {
      const match = NUMBER_PREFIX.exec(line);
      if (!match) return undefined;
      const number = Number(match[1]);
      first ??= number;
      if (consecutive && number !== first + i) return undefined;
      out.push(line.slice(match[0].length));
    }
    if (last !== undefined) out.push(last);
    return first === undefined ? undefined : { text: out.join("\n"), first };
  };
  const search = strip(oldString, true);
  if (search === undefined || search.text.trim() === "") return undefined;
  const stripped = strip(newString, false);
  const anyPrefixed = newString.split("\n").some((line) => NUMBER_PREFIX.test(line));
  if (stripped === undefined && anyPrefixed && newString !== "") return undefined;
  return {
    line: search.first,
    candidate: {
      search: search.text,
      replacement: stripped?.text ?? newString,
      repairs: ["read_file's line-number prefixes were removed from old_string (and new_string)"],
    },
  };
}

function* lineEndingVariants(
  candidate: Candidate,
  crlfFile: boolean,
  format: TextFormat,
): Generator<Candidate> {
  // A CRLF file keeps CRLF in whatever the model adds, whichever way it wrote its line breaks.
  const replacement =
    format.eol === "crlf" ? withLineEndings(candidate.replacement, "crlf") : candidate.replacement;
  yield { ...candidate, replacement };
  if (crlfFile && /(^|[^\r])\n/.test(candidate.search)) {
    yield {
      search: withLineEndings(candidate.search, "crlf"),
      replacement: withLineEndings(candidate.replacement, "crlf"),
      repairs: candidate.repairs,
    };
  }
}

function apply(text: string, format: TextFormat, candidate: Candidate, found: readonly number[]): EditPlan {
  assertNoSwallowedBreak(text, candidate, found);
  const parts: string[] = [];
  const starts: number[] = [];
  let from = 0;
  let length = 0;
  for (const at of found) {
    parts.push(text.slice(from, at));
    length += at - from;
    starts.push(length);
    parts.push(candidate.replacement);
    length += candidate.replacement.length;
    from = at + candidate.search.length;
  }
  parts.push(text.slice(from));
  let next = parts.join("");
  // An edit of the last line must not take the file's final newline with it.
  if (format.finalNewline && next.length > 0 && !next.endsWith("\n")) {
    next += format.eol === "crlf" ? "\r\n" : "\n";
  }
  return {
    text: next,
    starts,
    search: candidate.search,
    replacement: candidate.replacement,
    repairs: candidate.repairs,
  };
}

/** Non-overlapping occurrences, left to right. */
export function occurrences(text: string, search: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length))
    found.push(at);
  return found;
}

/** 1-based line number of a character offset. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) line++;
  return line;
}

/** The string a model meant when it JSON-escaped it once more than needed; undefined when it is not that. */
function unescapeJson(value: string): string | undefined {
  if (!value.includes("\\")) return undefined;
  try {
    const parsed: unknown = JSON.parse(`"${value}"`);
    return typeof parsed === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function notFoundMessage(text: string, oldString: string): string {
  const base =
    "old_string was not found. It must match the file exactly, including whitespace, indentation and line breaks; copy it from the file without the line-number prefix.";
  const hint = closestHint(text, oldString);
  return hint === undefined
    ? `${base} Nothing close was found; read the file again (read_file).`
    : `${base} ${hint}`;
}

/**
 * An old_string that begins (or ends) with a line break, replaced by text that does not, would join the
 * line before (or after) the match to the new text: refused, since either reading is a guess.
 */
function assertNoSwallowedBreak(text: string, candidate: Candidate, found: readonly number[]): void {
  const { search, replacement } = candidate;
  if (replacement === "") return;
  const breakAt = (value: string, end: boolean) => (end ? /\r?\n$/ : /^\r?\n/).test(value);
  const leading = breakAt(search, false) && !breakAt(replacement, false);
  // At the very end of the file there is no next line to join (the final newline is kept anyway).
  const inside = found.filter((at) => at + search.length < text.length);
  const trailing = inside.length > 0 && breakAt(search, true) && !breakAt(replacement, true);
  const at = (leading ? found[0] : inside[0]) as number;
  if (!leading && !trailing) return;
  // The line ending at the match's first break, or the line after the one its last break ends.
  const first = lineOf(text, at) + (leading ? 1 : 0);
  const last = lineOf(text, at) + lineOf(search, search.length) - 2;
  const matched = first >= last ? `line ${first}` : `lines ${first}-${last}`;
  const which = leading ? "starts" : "ends";
  const neighbour = leading ? `line ${first - 1}, just before it,` : `line ${last + 1}, just after it,`;
  throw new ToolFailure(
    "InvalidInput",
    `old_string (${matched}) ${which} with a line break but new_string does not, so ${neighbour} would be joined onto the new text; nothing was written. ` +
      `Give both strings the same ${leading ? "leading" : "trailing"} line break, or leave it off both.`,
  );
}
