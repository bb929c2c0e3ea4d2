// The tsvector a store indexes and the snippet it shows, both cut the way core's `searchTerms` cuts a
// query (lowercased runs of letters and digits), so a term matches exactly the words it would in any store.
// Postgres's own parser would keep `deploy.sh` or `/src/a.ts` as one token, which `sh` could not match.

/** Postgres refuses lexemes of 2048 bytes or more and tsvectors over 1 MB; positions stop at 16383. */
const MAX_LEXEME_BYTES = 2047;
const MAX_POSITION = 16_383;
const MAX_POSITIONS_PER_LEXEME = 256;
const VECTOR_BUDGET = 600_000;

/** A tsvector literal for `text`, or undefined when it holds no word. Very long texts index their start. */
export function tsvectorLiteral(text: string): string | undefined {
  const positions = new Map<string, number[]>();
  let position = 0;
  let size = 0;
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length === 0) continue;
    position = Math.min(position + 1, MAX_POSITION);
    if (Buffer.byteLength(word) > MAX_LEXEME_BYTES) continue;
    const list = positions.get(word);
    if (list === undefined) {
      size += Buffer.byteLength(word) + 12;
      if (size > VECTOR_BUDGET) break;
      positions.set(word, [position]);
    } else if (list.length < MAX_POSITIONS_PER_LEXEME && list.at(-1) !== position) {
      size += 2;
      list.push(position);
    }
  }
  if (positions.size === 0) return undefined;
  // Words are letters and digits only, so quoting needs no escapes.
  return [...positions].map(([word, at]) => `'${word}':${at.join(",")}`).join(" ");
}

/** A tsquery literal requiring every term as a word prefix, or undefined when no term can match. */
export function tsqueryLiteral(terms: readonly string[]): string | undefined {
  if (terms.some((term) => Buffer.byteLength(term) > MAX_LEXEME_BYTES)) return undefined;
  return terms.map((term) => `'${term}':*`).join(" & ");
}

/** About 200 characters of `text` around the first word starting with a term, matching words in [brackets]. */
export function snippetOf(text: string, terms: readonly string[]): string {
  const flat = text.replace(/\s+/g, " ");
  const words = [...flat.matchAll(/[\p{L}\p{N}]+/gu)];
  const matches = (word: string): boolean => {
    const lower = word.toLowerCase();
    return terms.some((term) => lower.startsWith(term));
  };
  const first = words.find((w) => matches(w[0]));
  const anchor = first?.index ?? 0;
  const start = Math.max(0, anchor - 80);
  const end = Math.min(flat.length, start + 200);
  let out = "";
  let at = start;
  for (const word of words) {
    const index = word.index ?? 0;
    if (index < start || index + word[0].length > end) continue;
    if (!matches(word[0])) continue;
    out += `${flat.slice(at, index)}[${word[0]}]`;
    at = index + word[0].length;
  }
  out += flat.slice(at, end);
  return `${start > 0 ? "…" : ""}${out.trim()}${end < flat.length ? "…" : ""}`;
}
