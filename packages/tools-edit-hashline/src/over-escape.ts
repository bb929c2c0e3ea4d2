import { ToolFailure } from "@bridle/core";
import type { Change } from "./apply-edits.js";
import type { LineSource } from "./document.js";

/** A backslash sequence outside any string or regex literal of one line. */
interface Stray {
  /** `doubled` is `\\` inside a regex literal; the rest are outside every literal. */
  readonly kind: "quote" | "newline" | "tab" | "doubled";
  /** The character after the backslash (after both, for `doubled`). */
  readonly next: string;
  readonly line: number;
  readonly at: number;
}

// How far around an edit the file's own lines are taken as the witness of what its text looks like.
const WITNESS_LINES = 10;
const MAX_REPORTED = 5;

/**
 * Refuse new_text that was evidently JSON-escaped once too often: `\"` or `\'` where the code has no
 * string to be inside, or `\n` standing for line breaks in text that has none. Only sequences outside
 * string and regex literals count (`"a\nb"`, `/\n/` and `'{\"k\": 1}'` are code); a path-like `C:\new`
 * does not count; and a kind the lines around the edit also hold outside literals (a shell script's
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
  const strays = change.lines.flatMap((text, line) => strayEscapes(text, line));
  if (strays.length === 0) return undefined;
  const from = Math.max(0, change.start - WITNESS_LINES);
  const to = Math.min(doc.count - 1, change.end + WITNESS_LINES);
  const witness = new Set<Stray["kind"]>();
  for (let i = from; i <= to; i++) for (const s of strayEscapes(doc.text(i), i)) witness.add(s.kind);
  const quote = strays.find((s) => s.kind === "quote" && !witness.has("quote"));
  // Literal \n only means flattened lines when the text has no real line break of its own.
  const flat =
    change.lines.length === 1
      ? strays.find((s) => s.kind === "newline" && !witness.has("newline"))
      : undefined;
  const where = `edit ${change.edit + 1} (line ${change.start + 1})`;
  const first = quote ?? flat;
  if (first) {
    const what = [quote && "\\\" or \\'", flat && "\\n"].filter(Boolean).join(" and ");
    const tabs = strays.some((s) => s.kind === "tab") ? " (and \\t)" : "";
    return (
      `${where}: new_text has ${what}${tabs} outside any string, ` +
      `as in \`${excerpt(change.lines[first.line] as string, first.at)}\`, and the lines around it have none`
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

const QUOTES = new Set(['"', "'", "`"]);
// After one of these (or at the start) a `/` opens a regex literal rather than dividing.
const BEFORE_REGEX = new Set([..."(,=:[!&|?{};+-*%<>~^"]);
const WORD = /[\w$]/;
// Words after which a `/` opens a regex literal too (`return /\n/.test(s)`).
const REGEX_KEYWORDS = /(?:^|[^\w$])(?:return|typeof|case|in|of|void|yield|await)$/;

/**
 * The backslash sequences of one line that sit outside string and regex literals. A literal that is not
 * closed on the line runs to its end (multi-line strings are rare, and a miss only means no refusal).
 */
export function strayEscapes(text: string, line: number): Stray[] {
  const out: Stray[] = [];
  let inside: string | undefined;
  let lastCode = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\") {
      const next = text[i + 1] ?? "";
      if (inside === undefined) {
        if (next === '"' || next === "'") out.push({ kind: "quote", next, line, at: i });
        else if ((next === "n" || next === "r" || next === "t") && !pathLike(text, i)) {
          out.push({ kind: next === "t" ? "tab" : "newline", next, line, at: i });
        }
      } else if (inside === "/" && next === "\\") {
        out.push({ kind: "doubled", next: text[i + 2] ?? "", line, at: i });
      }
      i++;
      lastCode = "\\";
      continue;
    }
    if (inside !== undefined) {
      if (ch === inside) inside = undefined;
      continue;
    }
    if (QUOTES.has(ch) && !(ch === "'" && /\w/.test(text[i - 1] ?? "") && /\w/.test(text[i + 1] ?? ""))) {
      inside = ch;
    } else if (ch === "/" && text[i + 1] !== "/" && text[i + 1] !== "*" && opensRegex(text, i, lastCode)) {
      inside = "/";
    } else if (ch === "/" && text[i + 1] === "/") {
      i++;
    }
    if (ch !== " " && ch !== "\t") lastCode = ch;
  }
  return out;
}

function opensRegex(text: string, at: number, lastCode: string): boolean {
  return lastCode === "" || BEFORE_REGEX.has(lastCode) || REGEX_KEYWORDS.test(text.slice(0, at).trimEnd());
}

/** `C:\new`, `src\table`: a backslash between a path's characters, not a line or tab break. */
function pathLike(text: string, at: number): boolean {
  const before = text[at - 1] ?? "";
  const after = text[at + 2] ?? "";
  return (WORD.test(before) || before === ":" || before === ".") && WORD.test(after);
}

function excerpt(text: string, at: number): string {
  const from = Math.max(0, at - 30);
  const to = Math.min(text.length, at + 30);
  return `${from > 0 ? "…" : ""}${text.slice(from, to)}${to < text.length ? "…" : ""}`;
}
