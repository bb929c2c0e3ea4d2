import { searchTerms } from "./store.js";

/** How well a text matches a query, for stores and tools that search by scanning. */
export interface TextMatch {
  /** BM25-like: more occurrences of rarer-in-this-text terms score higher; longer texts are discounted. */
  readonly score: number;
  /** About 200 characters around the first match, matched words in [brackets]. */
  readonly snippet: string;
}

const WORD = /[\p{L}\p{N}]+/gu;
const K1 = 1.2;
const B = 0.75;
const AVERAGE_WORDS = 64;
const SNIPPET_RADIUS = 90;

/**
 * Scores `text` against a query with the rule SQLite's FTS5 applies to a prefix query: every term must
 * start some word of the text, case-insensitively. Undefined when a term is missing.
 */
export function matchText(text: string, query: string | readonly string[]): TextMatch | undefined {
  const terms = typeof query === "string" ? searchTerms(query) : query;
  if (terms.length === 0) return undefined;
  const lower = text.toLowerCase();
  for (const term of terms) if (!lower.includes(term)) return undefined;
  const counts = new Array<number>(terms.length).fill(0);
  let words = 0;
  let first = -1;
  let firstLength = 0;
  for (const match of lower.matchAll(WORD)) {
    words++;
    for (let i = 0; i < terms.length; i++) {
      if (!match[0].startsWith(terms[i] as string)) continue;
      counts[i] = (counts[i] as number) + 1;
      if (first < 0) {
        first = match.index;
        firstLength = match[0].length;
      }
    }
  }
  if (counts.some((count) => count === 0)) return undefined;
  const norm = K1 * (1 - B + (B * words) / AVERAGE_WORDS);
  let score = 0;
  for (const count of counts) score += (count * (K1 + 1)) / (count + norm);
  return { score, snippet: snippetAround(text, lower, terms, first, firstLength) };
}

function snippetAround(
  text: string,
  lower: string,
  terms: readonly string[],
  at: number,
  length: number,
): string {
  let start = Math.max(0, at - SNIPPET_RADIUS);
  let end = Math.min(text.length, at + length + SNIPPET_RADIUS);
  // Widen to word boundaries (a little at most) so the snippet rarely starts or ends inside a word.
  const inWord = (i: number) => /[\p{L}\p{N}]/u.test(text[i] as string);
  for (let n = 0; n < 24 && start > 0 && inWord(start - 1); n++) start--;
  for (let n = 0; n < 24 && end < text.length && inWord(end); n++) end++;
  let out = "";
  let cursor = start;
  for (const match of lower.slice(start, end).matchAll(WORD)) {
    const word = match[0];
    if (!terms.some((term) => word.startsWith(term))) continue;
    const from = start + match.index;
    out += `${text.slice(cursor, from)}[${text.slice(from, from + word.length)}]`;
    cursor = from + word.length;
  }
  out += text.slice(cursor, end);
  out = out.replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${out}${end < text.length ? "…" : ""}`;
}
