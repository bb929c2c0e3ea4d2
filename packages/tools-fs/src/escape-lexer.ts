/** A backslash sequence where code, not a literal or a comment, is. */
export interface Stray {
  /**
   * `doubled` is `\\` inside a regex literal; the others stand outside every literal. `command` is a
   * backslash before any other letter (LaTeX's `\section`): never a slip, only a sign of the file's style.
   */
  readonly kind: "quote" | "newline" | "tab" | "doubled" | "command";
  /** The character after the backslash (after both, for `doubled`). */
  readonly next: string;
  /** Index of the line among those scanned with recording on. */
  readonly line: number;
  readonly at: number;
}

// What spans lines: a template literal (with `${…}` code inside, which may hold more templates), a
// Python triple-quoted string, a block comment. Single-line strings, regexes and line comments end with
// their line, so they are not kept here.
type Frame =
  | { readonly kind: "code"; depth: number }
  | { readonly kind: "template" }
  | { readonly kind: "triple"; readonly quote: string }
  | { readonly kind: "block" };

// After one of these (or at the start) a `/` opens a regex literal rather than dividing.
const BEFORE_REGEX = new Set([..."(,=:[!&|?{};+-*%<>~^"]);
// Words after which a `/` opens a regex literal too (`return /\n/.test(s)`).
const REGEX_KEYWORDS = /(?:^|[^\w$])(?:return|typeof|case|in|of|void|yield|await)$/;
const WORD = /[\w$]/;
// What follows `\n` in a comment when lines were flattened into it: an indented line, or another comment
// line (`// …`, `# …`, ` * …`), rather than prose about the sequence.
const FLATTENED_COMMENT = /^(?: {2,}|\t|\\t|\s*\/\/|\s*#\s| \*(?!\/))/;

/**
 * A rough lexer for the C, JS and Python families, enough to tell a backslash in a literal or comment
 * from one standing in code. Fed line by line, it carries multi-line literals and comments across them,
 * so a line inside a template literal that opened above is known to be inside it. Where it cannot tell,
 * it says "literal": a miss means no refusal, never a refused legitimate edit.
 */
export class EscapeLexer {
  readonly #stack: Frame[] = [{ kind: "code", depth: 0 }];

  /** Scan one line; with `line` given, return its strays (numbered with it). */
  scan(text: string, line?: number): Stray[] {
    const out: Stray[] = [];
    const record = (stray: Omit<Stray, "line">) => {
      if (line !== undefined) out.push({ ...stray, line });
    };
    let quote: string | undefined;
    let lineComment = /^\s*\*(?:\s|$)/.test(text) && this.#top.kind === "code";
    // A quote in a comment: "\r\n" or `\n` there is prose about the sequence.
    let commentQuote: string | undefined;
    let lastCode = "";
    // The end of a block comment whose start the lexer did not see.
    let i = this.#top.kind === "code" ? (/^\s*\*\//.exec(text)?.[0].length ?? 0) : 0;
    for (; i < text.length; i++) {
      const ch = text[i] as string;
      const next = text[i + 1] ?? "";
      const top = this.#top;
      if (lineComment || top.kind === "block") {
        if (ch === '"' || ch === "`") commentQuote = commentQuote === ch ? undefined : (commentQuote ?? ch);
        else if (top.kind === "block" && ch === "*" && next === "/") {
          this.#stack.pop();
          commentQuote = undefined;
          i++;
        } else if (ch === "\\" && commentQuote === undefined) {
          const flattened = next === "n" && FLATTENED_COMMENT.test(text.slice(i + 2));
          // `don\'t`: no comment spells a contraction with a backslash.
          const contraction = next === "'" && WORD.test(text[i - 1] ?? "") && WORD.test(text[i + 2] ?? "");
          // A comment line indented with `\t` written out: no comment begins its line with the sequence.
          const indent = next === "t" && text.slice(0, i).trim() === "";
          if (flattened) record({ kind: "newline", next, at: i });
          if (indent) record({ kind: "tab", next, at: i });
          if (contraction) record({ kind: "quote", next, at: i });
          // Flattened code after a line comment is code again.
          if (flattened && lineComment && !/^\s*(?:\/\/|#|\*)/.test(text.slice(i + 2))) lineComment = false;
          i++;
        }
        continue;
      }
      if (top.kind === "triple") {
        if (ch === "\\") i++;
        else if (text.startsWith(top.quote.repeat(3), i)) {
          this.#stack.pop();
          i += 2;
        }
        continue;
      }
      if (top.kind === "template") {
        if (ch === "\\") i++;
        else if (ch === "`") this.#stack.pop();
        else if (ch === "$" && next === "{") {
          this.#stack.push({ kind: "code", depth: 0 });
          i++;
        }
        continue;
      }
      if (quote !== undefined) {
        if (ch === "\\") {
          if (quote === "/" && next === "\\") record({ kind: "doubled", next: text[i + 2] ?? "", at: i });
          i++;
        } else if (ch === quote) quote = undefined;
        continue;
      }
      if (ch === "\\") {
        if (next === '"' || next === "'") record({ kind: "quote", next, at: i });
        else if ((next === "n" || next === "r" || next === "t") && !pathLike(text, i)) {
          record({ kind: next === "t" ? "tab" : "newline", next, at: i });
        } else if (/[A-Za-z]/.test(next)) record({ kind: "command", next, at: i });
        i++;
        lastCode = "\\";
        continue;
      }
      if ((ch === '"' || ch === "'") && text.startsWith(ch.repeat(3), i)) {
        this.#stack.push({ kind: "triple", quote: ch });
        i += 2;
      } else if (ch === "`") this.#stack.push({ kind: "template" });
      else if (ch === '"' || (ch === "'" && !(WORD.test(text[i - 1] ?? "") && WORD.test(next)))) quote = ch;
      else if (ch === "/" && next === "/") lineComment = true;
      else if (ch === "/" && next === "*") {
        this.#stack.push({ kind: "block" });
        i++;
      } else if (ch === "#" && (i === 0 || /\s/.test(text[i - 1] ?? "")) && /^(?:\s|!|$)/.test(next)) {
        lineComment = true;
      } else if (ch === "/" && opensRegex(text, i, lastCode)) quote = "/";
      else if (ch === "{" && top.kind === "code") top.depth++;
      else if (ch === "}" && top.kind === "code") {
        if (top.depth === 0 && this.#stack.length > 1) this.#stack.pop();
        else top.depth = Math.max(0, top.depth - 1);
      }
      if (ch !== " " && ch !== "\t") lastCode = ch;
    }
    return out;
  }

  get #top(): Frame {
    return this.#stack.at(-1) as Frame;
  }
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
