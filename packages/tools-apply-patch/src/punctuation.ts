// Characters models write in place of the ASCII punctuation a file holds (or the reverse, when a file
// was typed in a word processor). Mapping both sides to ASCII lets a context line match across them;
// nothing here changes what is written, only how a line is compared.
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201a\u201b\u2032\u2035\uff07]/g;
const DOUBLE_QUOTES = /[\u201c\u201d\u201e\u201f\u2033\u2036\uff02\u00ab\u00bb]/g;
const SPACES = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g;
const ELLIPSIS = /\u2026/g;
const NON_ASCII = /[\u0080-\uffff]/;

/** The line with Unicode dashes, quotes, spaces and ellipses as their ASCII look-alikes, trailing space dropped. */
export function asciiPunctuation(line: string): string {
  const trimmed = line.trimEnd();
  if (!NON_ASCII.test(trimmed)) return trimmed;
  return trimmed
    .replace(DASHES, "-")
    .replace(SINGLE_QUOTES, "'")
    .replace(DOUBLE_QUOTES, '"')
    .replace(SPACES, " ")
    .replace(ELLIPSIS, "...")
    .trimEnd();
}
