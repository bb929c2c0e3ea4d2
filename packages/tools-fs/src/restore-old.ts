/**
 * New text checked against the old text it replaces for slips that the old text gives away. First, one
 * JSON escape too many: `\"`, `\'`, `\n` or
 * `\t` that the new text holds more often than the old, and that, read once less escaped, give back what
 * the old text had (its words after the indentation, or whole lines of it). The lexer's test cannot see
 * these inside a literal or comment (an inline snapshot, a template string, a doc comment); the old text
 * can, since it says what the line looked like before the model retyped it.
 */
export interface RestoredOld {
  /** 0-based line of the new text holding the first such sequence, and its column. */
  readonly line: number;
  readonly at: number;
  /** The sequences as written: `\"`, `\n`, `“`… */
  readonly sequences: readonly string[];
}

const MEANT: Readonly<Record<string, string>> = { '"': '"', "'": "'", n: "\n", t: "\t" };
const ESCAPE = /\\([\s\S])/g;

// Unescaping must gain this many characters of agreement with the old text, or a whole line of it: a
// one-character coincidence is not evidence.
const MIN_GAIN = 2;

export function escapeRestoresOld(oldText: string, newText: string): RestoredOld | undefined {
  if (!newText.includes("\\")) return undefined;
  const before = counts(oldText);
  const after = counts(newText);
  const grown = new Set([...after].filter(([c, n]) => n > (before.get(c) ?? 0)).map(([c]) => c));
  if (grown.size === 0) return undefined;
  const restored = newText.replace(ESCAPE, (all, c: string) => (grown.has(c) ? (MEANT[c] as string) : all));
  if (!closer(restored, newText, oldText)) return undefined;
  const lines = newText.split("\n");
  for (const [line, text] of lines.entries()) {
    for (const match of text.matchAll(ESCAPE)) {
      if (grown.has(match[1] as string))
        return { line, at: match.index, sequences: [...grown].map((c) => `\\${c}`) };
    }
  }
  return undefined;
}

// Typographic quotes and the straight ones code uses.
const TYPOGRAPHIC = /[\u2018\u2019\u201c\u201d]/g;
const STRAIGHT: Readonly<Record<string, string>> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201c": '"',
  "\u201d": '"',
};

/**
 * Second, typographic quotes (‘ ’ “ ”) where the old text has straight ones: new text holding more of
 * them than the old, that with straight quotes gives back the old text (or just its count of straight
 * quotes, where the new text has fewer). A model retyping code through
 * its prose habits writes these; the code would no longer parse.
 */
export function quotesRestoreOld(oldText: string, newText: string): RestoredOld | undefined {
  const typed = newText.match(TYPOGRAPHIC)?.length ?? 0;
  if (typed === 0 || typed <= (oldText.match(TYPOGRAPHIC)?.length ?? 0)) return undefined;
  const restored = newText.replace(TYPOGRAPHIC, (c) => STRAIGHT[c] as string);
  // Or the straight quotes the old text had are missing, and the typographic ones make up for them exactly.
  const straight = (text: string) => text.match(/["']/g)?.length ?? 0;
  const replacedQuotes = straight(newText) < straight(oldText) && straight(restored) === straight(oldText);
  if (!replacedQuotes && !closer(restored, newText, oldText)) return undefined;
  for (const [line, text] of newText.split("\n").entries()) {
    const at = text.search(TYPOGRAPHIC);
    if (at !== -1) return { line, at, sequences: [...new Set(newText.match(TYPOGRAPHIC))] };
  }
  return undefined;
}

/** Whether the repaired text is evidently nearer the old text than the text as sent. */
function closer(restored: string, sent: string, old: string): boolean {
  return kept(restored, old) > kept(sent, old) || agreement(restored, old) >= agreement(sent, old) + MIN_GAIN;
}

/** How often each escaped character appears (a `\\` pair is one escape of its own, so `\\n` is not `\n`). */
function counts(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const match of text.matchAll(ESCAPE)) {
    const c = match[1] as string;
    if (c in MEANT) found.set(c, (found.get(c) ?? 0) + 1);
  }
  return found;
}

const flat = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .join("\n");

/** Characters the two texts share at their start and end, indentation aside. */
function agreement(text: string, old: string): number {
  const a = flat(text);
  const b = flat(old);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
    end++;
  return start + end;
}

/** How many of the old text's non-blank lines the text holds as whole lines, indentation aside. */
function kept(text: string, old: string): number {
  const lines = new Set(text.split("\n").map((line) => line.trim()));
  const wanted = new Set(old.split("\n").map((line) => line.trim()));
  return [...wanted].filter((line) => line !== "" && lines.has(line)).length;
}
