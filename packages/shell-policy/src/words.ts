import { homedir } from "node:os";
import type { SyntaxNode } from "./grammar.js";

/**
 * One shell word and what the policy knows of its value. `static` words have one value the shell will
 * certainly produce; `glob` words expand to file names; `dynamic` words depend on variables,
 * substitutions or brace expansion and cannot be judged; `obfuscated` words are ANSI-C strings, decoded
 * but suspicious where a command name is expected.
 */
export interface ShellWord {
  readonly text: string;
  readonly value: string;
  readonly kind: "static" | "glob" | "dynamic" | "obfuscated" | "fd";
}

export function staticWord(value: string): ShellWord {
  return { text: value, value, kind: "static" };
}

/** Words whose value the policy can reason about (globs and decoded ANSI-C strings included). */
export function isKnown(word: ShellWord): boolean {
  return word.kind !== "dynamic";
}

const BRACES = /\{[^}]*(,|\.\.)[^}]*\}/;

const RANK: Record<ShellWord["kind"], number> = { static: 0, fd: 0, obfuscated: 1, glob: 2, dynamic: 3 };

export function wordOf(node: SyntaxNode): ShellWord {
  const text = node.text;
  switch (node.type) {
    case "word":
    case "command_name":
    case "number":
    case "raw_string":
    case "string":
    case "ansi_c_string":
    case "concatenation":
    case "process_substitution":
      return combine(text, partsOf(node));
    default:
      return { text, value: text, kind: "dynamic" };
  }
}

function combine(text: string, parts: readonly ShellWord[]): ShellWord {
  let kind: ShellWord["kind"] = "static";
  let value = "";
  for (const part of parts) {
    if (RANK[part.kind] > RANK[kind]) kind = part.kind;
    value += part.value;
  }
  return { text, value, kind };
}

function partsOf(node: SyntaxNode): ShellWord[] {
  const text = node.text;
  switch (node.type) {
    case "command_name": {
      const child = node.namedChildren[0];
      return child ? partsOf(child) : [{ text, value: text, kind: "dynamic" }];
    }
    case "number":
      return [{ text, value: text, kind: "static" }];
    case "word":
      return [bareWord(text)];
    case "raw_string":
      return [{ text, value: text.slice(1, -1), kind: "static" }];
    case "string": {
      const named = node.namedChildren.filter((child) => child !== null);
      if (named.some((child) => child.type !== "string_content"))
        return [{ text, value: text, kind: "dynamic" }];
      return [{ text, value: unescapeDoubleQuoted(text.slice(1, -1)), kind: "static" }];
    }
    case "ansi_c_string": {
      const decoded = decodeAnsiC(text.slice(2, -1));
      return [
        decoded === undefined
          ? { text, value: text, kind: "dynamic" }
          : { text, value: decoded, kind: "obfuscated" },
      ];
    }
    case "concatenation": {
      const children = node.namedChildren.filter((child) => child !== null);
      // tree-sitter splits `{a,b}` into several words; bash expands it into several arguments.
      const bare = children.map((child) => (child.type === "word" ? child.text : "\0")).join("");
      if (BRACES.test(bare)) return [{ text, value: text, kind: "dynamic" }];
      return children.flatMap((child) => partsOf(child));
    }
    case "process_substitution":
      // The shell passes a /dev/fd path; what runs inside is judged as its own sub-command.
      return [{ text, value: "/dev/fd/63", kind: "fd" }];
    default:
      return [{ text, value: text, kind: "dynamic" }];
  }
}

function bareWord(text: string): ShellWord {
  // Brace expansion turns one word into several (`{/etc/passwd,x}`): nothing static can be said of it.
  if (BRACES.test(text)) return { text, value: text, kind: "dynamic" };
  let value = "";
  let glob = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === "\\") {
      const next = text[i + 1];
      i++;
      if (next !== undefined && next !== "\n") value += next;
      continue;
    }
    if (char === "*" || char === "?" || char === "[") glob = true;
    value += char;
  }
  if (value.startsWith("~")) {
    const slash = value.indexOf("/");
    const user = slash === -1 ? value.slice(1) : value.slice(1, slash);
    if (user !== "") return { text, value: text, kind: "dynamic" };
    value = homedir() + (slash === -1 ? "" : value.slice(slash));
  }
  return { text, value, kind: glob ? "glob" : "static" };
}

function unescapeDoubleQuoted(inner: string): string {
  return inner.replace(/\\([$`"\\\n])/g, (_, char: string) => (char === "\n" ? "" : char));
}

const SIMPLE_ESCAPES: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Decode the body of a $'…' string the way bash does; undefined for escapes it does not model. */
export function decodeAnsiC(body: string): string | undefined {
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const char = body[i] as string;
    if (char !== "\\") {
      out += char;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) return undefined;
    const simple = SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      out += simple;
      i++;
      continue;
    }
    const numeric =
      /^x([0-9a-fA-F]{1,2})/.exec(body.slice(i + 1)) ??
      /^u([0-9a-fA-F]{1,4})/.exec(body.slice(i + 1)) ??
      /^U([0-9a-fA-F]{1,8})/.exec(body.slice(i + 1));
    if (numeric) {
      out += String.fromCodePoint(Number.parseInt(numeric[1] as string, 16));
      i += numeric[0].length;
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(body.slice(i + 1));
    if (octal) {
      out += String.fromCharCode(Number.parseInt(octal[0], 8));
      i += octal[0].length;
      continue;
    }
    return undefined;
  }
  return out;
}
