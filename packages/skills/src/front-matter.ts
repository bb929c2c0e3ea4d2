import { parse as parseYaml, YAMLParseError } from "yaml";

export type FrontMatterResult =
  | { readonly ok: true; readonly data: Record<string, unknown>; readonly body: string }
  | { readonly ok: false; readonly problem: string };

// The opening fence must be the file's first line; the closing one is the next line holding only `---`
// (or `...`, YAML's document end). A BOM and CRLF line ends are accepted: skills are edited on Windows too.
const FENCE = /^---[ \t]*\r?\n/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*\r?$/m;

/** Split a SKILL.md into its YAML front matter (a mapping) and the markdown body after it. */
export function parseFrontMatter(text: string): FrontMatterResult {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const open = FENCE.exec(source);
  if (!open) return { ok: false, problem: "no YAML front matter (the file must start with a --- line)" };
  const rest = source.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return { ok: false, problem: "the front matter is not closed by a --- line" };
  const yamlText = rest.slice(0, close.index);
  // Blank lines between the front matter and the first heading carry nothing.
  const body = rest.slice(close.index + close[0].length).replace(/^(?:[ \t]*\r?\n)+/, "");
  let data: unknown;
  try {
    // Aliases are capped: a front matter is a few keys, so a "billion laughs" document is refused early.
    data = parseYaml(yamlText, { maxAliasCount: 20, prettyErrors: false });
  } catch (error) {
    const message = error instanceof YAMLParseError ? error.message.split("\n")[0] : String(error);
    return { ok: false, problem: `invalid YAML in the front matter: ${message}` };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { ok: false, problem: "the front matter is not a YAML mapping of keys to values" };
  }
  return { ok: true, data: data as Record<string, unknown>, body };
}
