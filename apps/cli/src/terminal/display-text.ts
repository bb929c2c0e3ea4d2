// Text the CLI did not write itself (the model's, tools', MCP servers', file names, stored sessions) reaches
// a terminal, and a terminal obeys control characters: an escape sequence can clear the screen, rewrite
// earlier lines (an approval prompt), retitle the window or set the clipboard (OSC 52). So every control
// character is shown as a visible escape, never written raw. It is done one character at a time with no
// state, which is what makes a sequence split across streamed deltas as harmless as a whole one: its ESC
// (or C1 introducer) is escaped wherever it falls, and what follows is plain text.
//
// Escaped: C0 but newline and tab, DEL, C1 (U+0080–U+009F), and the invisible format characters (Unicode
// Cf: bidirectional overrides and isolates, zero-width characters, tag characters) plus the line and
// paragraph separators, since they reorder or hide what a person reads, which matters most in a prompt
// that asks them to approve it. The cost is that an emoji joined by U+200D shows its joiner escaped.
// The backslash itself is left alone: escaping it would garble every Windows path and regex shown.

const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;
const UNSAFE_BUT_LAYOUT = /[^\n\t\P{Cc}]|[\p{Cf}\u2028\u2029]/gu;

/** A character as the escape a person reads: `\x1b`, `\u009b`, `\u{e0041}`. */
function escapeOf(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\u{${code.toString(16)}}`;
}

/**
 * Text shown as it is, its line breaks and tabs kept, every other control or invisible format character
 * escaped: for streamed model text and multi-line output.
 */
export function visible(text: string): string {
  return text.replace(UNSAFE_BUT_LAYOUT, escapeOf);
}

/**
 * Text shown within one line: every control and format character escaped (newlines too), cut after `max`
 * characters of the escaped text, never inside an escape.
 */
export function displayText(text: string, max = 300): string {
  // Escaping only makes text longer, so the first max + 1 characters decide what is shown.
  const shown = text.slice(0, max + 1).replace(UNSAFE, escapeOf);
  return shown.length > max ? `${cut(shown, max)}…` : shown;
}

/**
 * A text on one line: runs of ASCII spaces, tabs and line breaks as one space, trimmed, then as
 * `displayText`. A carriage return that ends no line is not whitespace here but shown (`\x0d`): it is what
 * would move the cursor back over what was written, and a file name holding one is another file. Unicode's
 * invisible separators (U+2028, U+FEFF…) are shown escaped rather than made spaces.
 */
export function oneLine(text: string, max = 300): string {
  return displayText(text.replace(/(?:\r?\n|[ \t\v\f])+/g, " ").replace(/^ | $/g, ""), max);
}

/** The first `max` characters, moved back so that neither an escape nor a surrogate pair is split. */
function cut(text: string, max: number): string {
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  // An escape is at most 10 characters (`\u{10ffff}`); a backslash that close to the end may start one.
  const tail = text.slice(Math.max(0, end - 10), end);
  const partial = /\\(?:|x[0-9a-f]?|u[0-9a-f]{0,3}|u\{[0-9a-f]*)$/.exec(tail);
  if (partial) end -= partial[0].length;
  return text.slice(0, end);
}

// JSON.stringify escapes C0 but writes DEL, C1 and the format characters raw, and `--json` output is often
// read on a terminal too. Escaped with \u, they parse back to exactly the same strings.
const JSON_UNSAFE = /[\u007f-\u009f\p{Cf}\u2028\u2029]/gu;

/** `JSON.stringify(value)` with no character a terminal would act on; parses to the same value. */
export function terminalJson(value: unknown, space?: number): string {
  const json = JSON.stringify(value, undefined, space) ?? "null";
  return json.replace(JSON_UNSAFE, (char) => {
    let escaped = "";
    for (let i = 0; i < char.length; i++) escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return escaped;
  });
}
