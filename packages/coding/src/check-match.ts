import type { CheckKind, DetectedCheck } from "./facts.js";

// The separators a command line's parts are joined with, as far as the exit status is concerned.
type Separator = "&&" | "||" | "|" | ";" | "&" | "end";

interface Part {
  readonly words: readonly string[];
  readonly after: Separator;
  readonly before: Separator | "start";
}

/** A command line's simple commands and what joins them; quotes are respected, nothing is expanded. */
function parts(command: string): Part[] {
  const out: Part[] = [];
  let words: string[] = [];
  let word = "";
  let quote: string | undefined;
  let before: Separator | "start" = "start";
  const endWord = () => {
    if (word !== "") words.push(word);
    word = "";
  };
  const endPart = (after: Separator) => {
    endWord();
    if (words.length > 0) out.push({ words, after, before });
    words = [];
    before = after;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    const next = command[i + 1];
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "\\" && next !== undefined) word += command[++i];
    else if (c === "&" && next === "&") {
      endPart("&&");
      i++;
    } else if (c === "|" && next === "|") {
      endPart("||");
      i++;
    } else if (c === "|" || c === "&" || c === ";" || c === "\n")
      endPart(c === "\n" ? ";" : (c as Separator));
    else if (c === " " || c === "\t") endWord();
    else word += c;
  }
  endPart("end");
  return out;
}

const MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
// Commands that run the rest of the line as the command proper.
const WRAPPERS: readonly (readonly string[])[] = [
  ["npx"],
  ["bunx"],
  ["npm", "exec"],
  ["pnpm", "exec"],
  ["yarn", "exec"],
  ["uv", "run"],
  ["poetry", "run"],
  ["python", "-m"],
  ["python3", "-m"],
  ["env"],
];

/** The words a part runs, with variable assignments, `timeout N` and runner wrappers taken off. */
function core(words: readonly string[]): string[] {
  let rest = [...words];
  for (let changed = true; changed; ) {
    changed = false;
    while (rest[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) {
      rest = rest.slice(1);
      changed = true;
    }
    if (rest[0] === "timeout" && rest[1] !== undefined && /^\d/.test(rest[1])) {
      rest = rest.slice(2);
      changed = true;
    }
    const wrapper = WRAPPERS.find((w) => w.every((word, i) => rest[i] === word) && rest.length > w.length);
    if (wrapper) {
      rest = rest.slice(wrapper.length);
      changed = true;
    }
  }
  const program = rest[0]?.replace(/^(\.\/)?node_modules\/\.bin\//, "");
  return program === undefined ? [] : [program, ...rest.slice(1)];
}

/** A package manager's script call in one form: `<pm> run <script> …` (npm test, yarn lint, pnpm run build). */
function scriptForm(words: readonly string[]): string[] {
  const [manager, first, ...rest] = words;
  if (manager === undefined || !MANAGERS.has(manager) || first === undefined) return [...words];
  if (first === "run" || first === "run-script") return ["<pm>", "run", ...rest];
  if (first === "test" || first === "t") return ["<pm>", "run", "test", ...rest];
  // yarn and pnpm run a script named as the command; bun's `bun test` is its own runner, not a script.
  if ((manager === "yarn" || manager === "pnpm") && /^[a-z][\w:-]*$/.test(first) && first !== "exec")
    return ["<pm>", "run", first, ...rest];
  return [...words];
}

/** A detected check's words to match, with trailing "whole project" arguments left off (`./...`, `.`). */
function checkWords(command: string): string[] {
  const words = scriptForm(core(parts(command)[0]?.words ?? []));
  while (words.length > 1 && (words.at(-1) === "./..." || words.at(-1) === ".")) words.pop();
  return words;
}

function startsWith(words: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length > 0 && prefix.every((word, i) => words[i] === word);
}

export interface MatchedCheck {
  readonly kind: CheckKind;
  readonly status: "passed" | "failed";
  /** Parts of the command line run after the check (`npm test && sed -i … f`): they may change what it saw. */
  readonly later: boolean;
}

type Form = { readonly kind: CheckKind; readonly words: readonly string[] };

/** The word forms each detected check is recognised by: its command, and a package script's own text. */
function formsOf(checks: readonly DetectedCheck[]): Form[] {
  return checks.flatMap((check) => {
    const body = check.body !== undefined && parts(check.body).length === 1 ? [checkWords(check.body)] : [];
    return [checkWords(check.command), ...body].map((words) => ({ kind: check.kind, words }));
  });
}

/** The check one sub-command runs (its words as the command policy gives them), if any. */
export function checkRunBy(argv: readonly string[], checks: readonly DetectedCheck[]): CheckKind | undefined {
  const words = scriptForm(core(argv));
  return formsOf(checks).find((form) => startsWith(words, form.words))?.kind;
}

/**
 * The check a shell command ran, judged by its command line: a part that runs a detected check's command
 * (or, for a package script, the script's own text), with the command's exit status as the check's
 * when that status is the check's own: the last part, or every part after it joined by `&&` and the
 * whole command passing. A check piped into another command, run in the background or after `||`
 * says nothing by the command's status and is not counted.
 */
export function matchCheck(
  command: string,
  exitCode: number,
  checks: readonly DetectedCheck[],
): MatchedCheck | undefined {
  const all = parts(command);
  const forms = formsOf(checks);
  for (let i = all.length - 1; i >= 0; i--) {
    const part = all[i] as Part;
    const words = scriptForm(core(part.words));
    const found = forms.find((form) => startsWith(words, form.words));
    if (!found) continue;
    if (part.before === "||" || part.after === "|" || part.after === "||" || part.after === "&")
      return undefined;
    if (part.after === "end")
      return { kind: found.kind, status: exitCode === 0 ? "passed" : "failed", later: false };
    const chained = all.slice(i).every((p) => p.after === "&&" || p.after === "end");
    return chained && exitCode === 0 ? { kind: found.kind, status: "passed", later: true } : undefined;
  }
  return undefined;
}
