/**
 * The text a JSON writer puts verbatim into a line: printable ASCII except the quote and backslash
 * (always escaped), the slash (PHP escapes it) and `<`, `>`, `&` (Go's encoder escapes them). Anything
 * else may appear as `\uXXXX` (Python's json.dumps does so for every non-ASCII character by default), so
 * a literal taken from it could miss rows; the prefilter only ever looks for verbatim runs.
 */
const VERBATIM = /[\x20-\x21\x23-\x25\x27-\x2e\x30-\x3b\x3d\x3f-\x5b\x5d-\x7e]+/g;
// A shorter run matches too many lines to be worth ripgrep's help.
const MIN_LITERAL = 3;

/** The longest run of `text` that any ordinary JSON writer leaves as it is, if long enough. */
export function verbatimRun(text: string): string | undefined {
  let best = "";
  for (const match of text.matchAll(VERBATIM)) if (match[0].length > best.length) best = match[0];
  return best.length >= MIN_LITERAL ? best : undefined;
}

/** A string value's whole encoded form (`"error"`, quotes included) when every character is verbatim. */
export function quotedIfVerbatim(text: string): string | undefined {
  VERBATIM.lastIndex = 0;
  const whole = text.match(VERBATIM);
  return whole?.length === 1 && whole[0] === text ? JSON.stringify(text) : undefined;
}
