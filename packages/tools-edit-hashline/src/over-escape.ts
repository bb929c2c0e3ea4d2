import { ToolFailure } from "@bridle/core";
import { EscapeLexer, escapeRestoresOld, type Stray } from "@bridle/tools-fs";
import type { Change } from "./apply-edits.js";
import type { LineSource } from "./document.js";

// How far around an edit the file's own lines are taken as the witness of what its text looks like.
const WITNESS_LINES = 10;
// How far above a scan starts, so a template literal or block comment open there is known (a longer one
// is missed, which only means no refusal).
const LEAD_LINES = 1_000;
const MAX_REPORTED = 5;

/**
 * Refuse new_text that was evidently JSON-escaped once too often: `\"` or `\'` where the code has no
 * string to be inside, or `\n` standing for line breaks in text that has none. Only sequences in code
 * count, not in literals or comments (`"a\nb"`, `/\n/`, `'{\"k\": 1}'` and `// ends in \n` are
 * fine), read with the literal or comment the file has open where the text lands; a path-like `C:\new`
 * does not count; and a kind the lines around the edit also hold in code (a shell script's
 * `echo \"x\"`, a Haskell `\n ->`) shows the file's own style, so it is never refused there. Nothing is
 * unescaped: hashline has no old text to confirm a guess against, and a refusal costs one turn where a
 * wrong guess costs a silently corrupted file. The call's `verbatim: true` skips this check.
 */
export function assertNotOverEscaped(doc: LineSource, changes: readonly Change[]): void {
  const found = changes.flatMap((change) => problemOf(doc, change) ?? []);
  if (found.length === 0) return;
  const more = found.length > MAX_REPORTED ? `; and ${found.length - MAX_REPORTED} more` : "";
  throw new ToolFailure(
    "InvalidInput",
    `new_text looks JSON-escaped twice, so nothing was written: ${found.slice(0, MAX_REPORTED).join("; ")}${more}. ` +
      "Resend it with real quotes, tabs and line breaks (in the JSON arguments a line break is \\n, not \\\\n; " +
      'a quote is \\", not \\\\\\"). If those backslashes belong in the file as written, resend the same call ' +
      'with "verbatim": true beside "edits".',
    { details: { overEscaped: found.length } },
  );
}

function problemOf(doc: LineSource, change: Change): string | undefined {
  if (change.lines.length === 0) return undefined;
  return inCode(doc, change) ?? restoresReplaced(doc, change);
}

/**
 * Escapes new_text holds more of than the lines it replaces, excused by the lexer inside a literal or
 * comment, that read once less escaped give those lines back: the replaced text shows the slip.
 */
function restoresReplaced(doc: LineSource, change: Change): string | undefined {
  if (change.insert) return undefined;
  const old: string[] = [];
  for (let i = change.start; i <= change.end; i++) old.push(doc.text(i));
  const found = escapeRestoresOld(old.join("\n"), change.lines.join("\n"));
  if (found === undefined) return undefined;
  return (
    `${whereOf(change)}: new_text has ${found.sequences.join(" and ")} where the line${change.end > change.start ? "s" : ""} it replaces ` +
    `${change.end > change.start ? "have" : "has"} the character itself, as in \`${excerpt(change.lines[found.line] as string, found.at)}\` ` +
    `(line ${found.line + 1} of new_text); read with one escape fewer it keeps their text`
  );
}

const whereOf = (change: Change) =>
  `edit ${change.edit + 1} (${change.end > change.start ? `lines ${change.start + 1}-${change.end + 1}` : `line ${change.start + 1}`})`;

function inCode(doc: LineSource, change: Change): string | undefined {
  // new_text is read twice: on its own, and as the file would hold it (inside whatever literal or comment
  // is open where it lands). A sequence counts only when both readings put it in code, so a misreading of
  // the lines above (the lexer is rough) can only excuse text, never refuse it.
  // Most text has no sequence in code on its own, and then the file above need not be read at all.
  const alone = new EscapeLexer();
  const candidates = change.lines
    .flatMap((text, line) => alone.scan(text, line))
    .filter((s) => s.kind !== "command");
  if (candidates.length === 0) return undefined;
  const placed = lexerAt(doc, change.insert ? change.start + 1 : change.start);
  const inPlace = new Set(change.lines.flatMap((text, line) => placed.scan(text, line)).map(key));
  const strays = candidates.filter((s) => inPlace.has(key(s)));
  if (strays.length === 0) return undefined;
  // The witness is the other way round: what either reading of the lines around finds in code.
  const from = Math.max(0, change.start - WITNESS_LINES);
  const to = Math.min(doc.count - 1, change.end + WITNESS_LINES);
  const witness = new Set<Stray["kind"]>();
  for (const reader of [new EscapeLexer(), lexerAt(doc, from)]) {
    for (let i = from; i <= to; i++) for (const s of reader.scan(doc.text(i), i)) witness.add(s.kind);
  }
  const quote = strays.find((s) => s.kind === "quote" && !witness.has("quote"));
  // A literal \n or \t in code, where the lines around have none, stands for a line break or a tab,
  // beside real line breaks as much as in text that has none.
  const flat = strays.find((s) => s.kind === "newline" && !witness.has("newline"));
  // A file that writes backslash commands in code (LaTeX) may mean `\t` as one (`\textbf`).
  const tab = strays.find((s) => s.kind === "tab" && !witness.has("tab") && !witness.has("command"));
  const where = whereOf(change);
  const first = quote ?? flat ?? tab;
  if (first) {
    const what = [quote && "\\\" or \\'", flat && "\\n", tab && "\\t"].filter(Boolean).join(" and ");
    return (
      `${where}: new_text has ${what} outside any string, ` +
      `as in \`${excerpt(change.lines[first.line] as string, first.at)}\` (line ${first.line + 1} of new_text), and the lines around it have none`
    );
  }
  const doubled = doubledInRegex(doc, change, strays);
  if (doubled) {
    return (
      `${where}: every backslash of new_text is doubled, and in a regex, as in ` +
      `\`${excerpt(change.lines[doubled.line] as string, doubled.at)}\`, where the line it replaces has single ones`
    );
  }
  return undefined;
}

/**
 * A regex whose backslashes were all doubled (`/\\d+/` for `/\d+/`) has no stray to show; it is refused
 * only against the lines it replaces: they hold each escape singly and no doubled backslash at all, and
 * new_text has no single backslash anywhere. A deliberate `\\` in a string (a Windows path) is not a regex.
 */
function doubledInRegex(doc: LineSource, change: Change, strays: readonly Stray[]): Stray | undefined {
  const doubled = strays.filter((s) => s.kind === "doubled");
  if (change.insert || doubled.length < 2) return undefined;
  if (change.lines.some((line) => line.replaceAll("\\\\", "").includes("\\"))) return undefined;
  let replaced = "";
  for (let i = change.start; i <= change.end; i++) replaced += `${doc.text(i)}\n`;
  if (replaced.includes("\\\\")) return undefined;
  const singles = doubled.every((s) => replaced.includes(`\\${s.next}`));
  return singles ? doubled[0] : undefined;
}

const key = (s: Stray) => `${s.line}:${s.at}:${s.kind}`;

/** A lexer that has read the lines before `line` (up to LEAD_LINES of them). */
function lexerAt(doc: LineSource, line: number): EscapeLexer {
  const lexer = new EscapeLexer();
  for (let i = Math.max(0, line - LEAD_LINES); i < line; i++) lexer.scan(doc.text(i));
  return lexer;
}

function excerpt(text: string, at: number): string {
  const from = Math.max(0, at - 30);
  const to = Math.min(text.length, at + 30);
  return `${from > 0 ? "…" : ""}${text.slice(from, to)}${to < text.length ? "…" : ""}`;
}
