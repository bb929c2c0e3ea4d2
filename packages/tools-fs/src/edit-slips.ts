import { ToolFailure } from "@bridle/core";
import { splitLines } from "./edit-hints.js";
import type { EditPlan } from "./edit-match.js";
import { EscapeLexer, type Stray } from "./escape-lexer.js";
import { escapeRestoresOld, quotesRestoreOld } from "./restore-old.js";

// How far around the match the file's own lines are taken as the witness of what its text looks like.
const WITNESS_LINES = 10;
// How far above the match a scan starts, so a template literal or block comment open there is known.
const LEAD_LINES = 1_000;

/**
 * Refuse a planned replacement that carries one of the slips a model makes in new_string alone, which no
 * old_string match can catch: written as sent, the file would be wrong and the model told it worked.
 */
export function assertNoSlips(text: string, plan: EditPlan): void {
  const at = plan.starts[0];
  if (at === undefined) return;
  const before = text.slice(0, at);
  const lineStart = before.lastIndexOf("\n") + 1;
  const lineNumber = before.split("\n").length;
  const slip =
    escapeSlip(text, plan, lineStart, lineNumber) ??
    doubledKeptLine(plan, lineNumber) ??
    restoredByUnescaping(plan, lineNumber) ??
    typographicQuotes(plan, lineNumber);
  if (slip) throw new ToolFailure("InvalidInput", slip);
}

/**
 * A line old_string holds, kept in new_string with its backslashes (or escaped quotes) doubled: the
 * lexer cannot see it inside a regex or string, but the line the model meant to keep is right there.
 */
function doubledKeptLine(plan: EditPlan, lineNumber: number): string | undefined {
  const old = plan.search.split("\n").map((line) => line.replace(/\r$/, ""));
  const kept = new Map(old.map((line, i) => [line, i]));
  const added = plan.replacement.split("\n").map((line) => line.replace(/\r$/, ""));
  for (const [i, line] of added.entries()) {
    if (!line.includes("\\")) continue;
    const undoubled = line.replace(/\\(\\|"|')/g, "$1");
    const at = kept.get(undoubled);
    if (undoubled === line || at === undefined || kept.has(line)) continue;
    return (
      `line ${i + 1} of new_string is line ${lineNumber + at} of the file (in old_string) with its backslashes doubled ` +
      `(\`${line.slice(0, 80)}\`), so it looks JSON-escaped once too often and nothing was written. ` +
      "Resend new_string with each backslash and quote written once, as the file has them."
    );
  }
  return undefined;
}

/**
 * Escapes that new_string holds more of than old_string, inside a literal or comment where the lexer
 * excuses them, but that read once less escaped give back old_string's own text: the same slip.
 */
function restoredByUnescaping(plan: EditPlan, lineNumber: number): string | undefined {
  const found = escapeRestoresOld(plan.search, plan.replacement);
  if (found === undefined) return undefined;
  const line = plan.replacement.split("\n")[found.line]?.replace(/\r$/, "") ?? "";
  const excerpt = line.slice(Math.max(0, found.at - 30), found.at + 30);
  return (
    `new_string has ${found.sequences.join(" and ")} where old_string has the character itself (new_string's line ${found.line + 1}, which lands at line ${lineNumber + found.line}: \`${excerpt}\`): ` +
    "read with one escape fewer it keeps old_string's text, so it looks JSON-escaped once too often and nothing was written. " +
    'Resend new_string with real quotes, tabs and line breaks, as old_string has them (in the JSON arguments a line break is \\n, not \\\\n; a quote is \\", not \\\\\\").'
  );
}

/** Typographic quotes in new_string where old_string has straight ones: code retyped as prose. */
function typographicQuotes(plan: EditPlan, lineNumber: number): string | undefined {
  const found = quotesRestoreOld(plan.search, plan.replacement);
  if (found === undefined) return undefined;
  const line = plan.replacement.split("\n")[found.line]?.replace(/\r$/, "") ?? "";
  const excerpt = line.slice(Math.max(0, found.at - 30), found.at + 30);
  return (
    `new_string has typographic quotes (${found.sequences.join(" ")}) where old_string has straight ones (new_string's line ${found.line + 1}, which lands at line ${lineNumber + found.line}: \`${excerpt}\`), so nothing was written. ` +
    "Resend new_string with the straight quotes (\" and ') that old_string has."
  );
}

/**
 * `\"`, `\'`, `\n` or `\t` standing in code (outside every literal and comment) in the replacement,
 * where old_string and the lines around the match hold none in code: new_string went through one JSON
 * encoding too many. Read as the file would hold it too (inside whatever literal is open where it lands),
 * so a `\n` added to a string literal is never refused; the lexer says "literal" where it cannot tell.
 */
function escapeSlip(text: string, plan: EditPlan, lineStart: number, lineNumber: number): string | undefined {
  const added = plan.replacement.split("\n").map((line) => line.replace(/\r$/, ""));
  const alone = new EscapeLexer();
  const candidates = added
    .flatMap((line, i) => alone.scan(line, i))
    .filter((s) => s.kind !== "doubled" && s.kind !== "command");
  if (candidates.length === 0) return undefined;
  const lines = splitLines(text);
  const placed = new EscapeLexer();
  for (let i = Math.max(0, lineNumber - 1 - LEAD_LINES); i < lineNumber - 1; i++) placed.scan(lines[i] ?? "");
  const prefix = text.slice(lineStart, plan.starts[0]);
  const inPlace = new Set(
    [`${prefix}${added[0] ?? ""}`, ...added.slice(1)]
      .flatMap((line, i) => placed.scan(line, i))
      .map((s) => key(s.line === 0 ? { ...s, at: s.at - prefix.length } : s)),
  );
  const strays = candidates.filter((s) => inPlace.has(key(s)));
  if (strays.length === 0) return undefined;
  const witness = new Set<Stray["kind"]>();
  const oldLexer = new EscapeLexer();
  for (const line of plan.search.split("\n")) for (const s of oldLexer.scan(line, 0)) witness.add(s.kind);
  const from = Math.max(0, lineNumber - 1 - WITNESS_LINES);
  const to = Math.min(lines.length - 1, lineNumber - 1 + plan.search.split("\n").length + WITNESS_LINES);
  const around = new EscapeLexer();
  for (let i = from; i <= to; i++) for (const s of around.scan(lines[i] ?? "", i)) witness.add(s.kind);
  // A file that writes backslash commands in code (LaTeX) may mean `\t` as one (`\textbf`).
  const slips = strays.filter((s) => !witness.has(s.kind) && !(s.kind === "tab" && witness.has("command")));
  const first = slips[0];
  if (first === undefined) return undefined;
  const kinds = [...new Set(slips.map((s) => NAMES[s.kind]))].join(" and ");
  const line = added[first.line] as string;
  const excerpt = line.slice(Math.max(0, first.at - 30), first.at + 30);
  return (
    `new_string has ${kinds} outside any string (its line ${first.line + 1}, which lands at line ${lineNumber + first.line}: \`${excerpt}\`), ` +
    `where old_string and the file around it (lines ${from + 1}-${to + 1}) have none: it looks JSON-escaped once too often, so nothing was written. ` +
    'Resend new_string with real quotes, tabs and line breaks (in the JSON arguments a line break is \\n, not \\\\n; a quote is \\", not \\\\\\").'
  );
}

const NAMES: Record<Stray["kind"], string> = {
  quote: "\\\" or \\'",
  newline: "\\n",
  tab: "\\t",
  doubled: "\\\\",
  command: "\\",
};

const key = (s: Pick<Stray, "line" | "at" | "kind">) => `${s.line}:${s.at}:${s.kind}`;

/**
 * A replacement of whole lines whose first or last line repeats the unchanged line just above or below
 * the match, when old_string does not hold that line there: the slip of keeping a context line in
 * new_string but not in old_string. Applied, the line would be there twice, so it is refused with the
 * two ways to say what was meant.
 */
export function assertNoDuplicatedNeighbour(plan: EditPlan): void {
  const text = plan.text;
  const replacement = plan.replacement;
  const inner = (value: string) => value.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
  const core = inner(replacement);
  if (core.trim() === "") return;
  const lead = replacement.length - replacement.replace(/^\r?\n/, "").length;
  const old = splitLines(inner(plan.search));
  const lines = splitLines(text);
  for (const off of plan.starts.slice(0, 3)) {
    const a = off + lead;
    const b = a + core.length;
    const wholeLines =
      (a === 0 || text[a - 1] === "\n") && (b === text.length || /[\r\n]/.test(text[b] as string));
    if (!wholeLines) continue;
    const first = lineNumberAt(text, a);
    const last = lineNumberAt(text, b);
    const above = lines[first - 2];
    const below = lines[last];
    // Numbered as the file is now (before the edit), as the model read it.
    const span = old.length <= 1 ? `line ${first}` : `lines ${first}-${first + old.length - 1}`;
    if (above?.trim() && lines[first - 1] === above && old[0] !== above) {
      throw duplicate("first", "above", above, first - 1, span);
    }
    if (below?.trim() && lines[last - 1] === below && old.at(-1) !== below) {
      throw duplicate("last", "below", below, first + old.length, span);
    }
  }
}

function duplicate(
  which: "first" | "last",
  side: "above" | "below",
  line: string,
  neighbour: number,
  span: string,
) {
  const shown = JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line);
  return new ToolFailure(
    "InvalidInput",
    `the ${which} line of new_string repeats line ${neighbour}, just ${side} old_string (${span}): ${shown}, which old_string does not include: applied, that line would be there twice, so nothing was written. ` +
      `If line ${neighbour} should stay as it is, leave it out of new_string; if new_string is meant to replace it, add it to old_string as well.`,
  );
}

/** 1-based line number of a character offset. */
function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) line++;
  return line;
}
