import { isCollection, parseDocument, visit } from "yaml";

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
  // The failsafe schema reads every scalar as a string, as skills-ref's strictyaml does: `name: 2024`
  // is the name "2024", never a number. Aliases are capped: a front matter is a few keys, so a "billion
  // laughs" document is refused early.
  const document = parseDocument(yamlText, { schema: "failsafe", prettyErrors: false });
  const [first] = document.errors;
  if (first)
    return { ok: false, problem: `invalid YAML in the front matter: ${first.message.split("\n")[0]}` };
  // strictyaml refuses JSON-like flow collections (`[a, b]`, `{a: b}`): one entry a line, or a quoted string.
  let flow = false;
  visit(document, (_key, node) => {
    if (isCollection(node) && node.flow) {
      flow = true;
      return visit.BREAK;
    }
    return undefined;
  });
  if (flow) {
    return {
      ok: false,
      problem:
        "invalid YAML in the front matter: flow style ([a, b] or {a: b}) is not allowed; write one entry a line, or quote the text",
    };
  }
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 20 });
  } catch (error) {
    return {
      ok: false,
      problem: `invalid YAML in the front matter: ${(error as Error).message.split("\n")[0]}`,
    };
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { ok: false, problem: "the front matter is not a YAML mapping of keys to values" };
  }
  return { ok: true, data: data as Record<string, unknown>, body };
}
