// Bugs with a known inverse, planted in one line of a real source file. Each finder lists every place its
// kind of bug can go; the task generator picks among them with a seeded random source, so the same seed
// gives the same tasks. Every mutation changes exactly one line (or deletes one), which is what lets the
// scripted model know the exact fix and the check compare the file with the original byte for byte.

export const MUTATION_KINDS = [
  "flipped_operator",
  "off_by_one",
  "swapped_arguments",
  "deleted_statement",
  "renamed_identifier",
  "changed_literal",
] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

/** One planted bug: line `line` (0-based) of the original reads `original`; the task's file has `mutated` (or no line). */
export interface Mutation {
  readonly kind: MutationKind;
  readonly line: number;
  readonly original: string;
  /** Undefined when the statement was deleted. */
  readonly mutated: string | undefined;
  /** The fix, in words (never a diff). */
  readonly fix: string;
}

/** The file's lines with the mutation applied. */
export function applyMutation(lines: readonly string[], mutation: Mutation): string[] {
  const out = [...lines];
  if (mutation.mutated === undefined) out.splice(mutation.line, 1);
  else out[mutation.line] = mutation.mutated;
  return out;
}

/** Every place a bug of `kind` can be planted in `lines`. */
export function candidates(kind: MutationKind, lines: readonly string[]): Mutation[] {
  const out: Mutation[] = [];
  lines.forEach((original, line) => {
    if (!isCode(original)) return;
    const found = FINDERS[kind](original, line, lines);
    // A mutation whose result is another line's exact text would make "the line" ambiguous to describe.
    if (found && found.mutated !== original && !lines.includes(found.mutated ?? "\u0000")) out.push(found);
  });
  return out;
}

type Finder = (text: string, line: number, lines: readonly string[]) => Mutation | undefined;

const FLIPS: readonly (readonly [string, string])[] = [
  ["===", "!=="],
  ["!==", "==="],
  ["<=", ">"],
  [">=", "<"],
  ["&&", "||"],
  ["||", "&&"],
  ["<", ">="],
  [">", "<="],
  ["+", "-"],
];

const FINDERS: Record<MutationKind, Finder> = {
  flipped_operator(text, line) {
    const code = withoutStrings(text);
    for (const [good, bad] of FLIPS) {
      const at = code.indexOf(` ${good} `);
      if (at < 0) continue;
      const mutated = `${text.slice(0, at + 1)}${bad}${text.slice(at + 1 + good.length)}`;
      return {
        kind: "flipped_operator",
        line,
        original: text,
        mutated,
        fix: `Line ${line + 1} (\`${mutated.trim()}\`) uses the operator \`${bad}\` where the code needs \`${good}\`: the operator is flipped. Change that \`${bad}\` back to \`${good}\`.`,
      };
    }
    return undefined;
  },
  off_by_one(text, line) {
    const code = withoutStrings(text);
    const match = /(?<![\w$.])(\d{1,3})(?![\w.])/.exec(code);
    if (!match) return undefined;
    const good = Number(match[1]);
    const bad = good === 0 ? 1 : good + (line % 2 === 0 ? 1 : -1);
    const mutated = `${text.slice(0, match.index)}${bad}${text.slice(match.index + (match[1] as string).length)}`;
    return {
      kind: "off_by_one",
      line,
      original: text,
      mutated,
      fix: `Line ${line + 1} (\`${mutated.trim()}\`) has an off-by-one error: the number ${bad} there should be ${good}.`,
    };
  },
  swapped_arguments(text, line) {
    const code = withoutStrings(text);
    const match = /([A-Za-z_$][\w$.]*)\(([^(),]+), ([^(),]+)\)/.exec(code);
    if (!match || match[2] === match[3]) return undefined;
    const [whole, fn, a] = match as unknown as [string, string, string];
    const start = match.index + fn.length + 1;
    const original = text.slice(start, start + whole.length - fn.length - 2);
    const [first, second] = [original.slice(0, a.length), original.slice(a.length + 2)];
    if (/^\s|\s$/.test(first) || /^\s|\s$/.test(second)) return undefined;
    const mutated = `${text.slice(0, start)}${second}, ${first}${text.slice(start + original.length)}`;
    return {
      kind: "swapped_arguments",
      line,
      original: text,
      mutated,
      fix: `Line ${line + 1} (\`${mutated.trim()}\`) passes the two arguments of \`${fn}\` in the wrong order: it should be \`${fn}(${first}, ${second})\`.`,
    };
  },
  deleted_statement(text, line, lines) {
    const trimmed = text.trim();
    const previous = lines[line - 1];
    if (previous === undefined || previous.trim() === "" || lines[line + 1] === undefined) return undefined;
    if (!trimmed.endsWith(";") || trimmed.length < 8 || !balanced(trimmed)) return undefined;
    if (lines.some((other, i) => i !== line && other === text)) return undefined;
    return {
      kind: "deleted_statement",
      line,
      original: text,
      mutated: undefined,
      fix: `A statement is missing right after line ${line} (\`${previous.trim()}\`): the line \`${trimmed}\` was deleted. Put it back there, indented like the code around it.`,
    };
  },
  renamed_identifier(text, line, lines) {
    const code = withoutStrings(text);
    for (let d = line - 1; d >= Math.max(0, line - 40); d--) {
      const declared = /\b(?:const|let|var)\s+([A-Za-z_$][\w$]{3,})\s*=/.exec(lines[d] ?? "")?.[1];
      if (!declared) continue;
      const use = new RegExp(`(?<![\\w$.])${escapeRegExp(declared)}(?![\\w$])`).exec(code);
      if (!use) continue;
      const bad = declared.endsWith("s") ? declared.slice(0, -1) : `${declared}s`;
      const mutated = `${text.slice(0, use.index)}${bad}${text.slice(use.index + declared.length)}`;
      return {
        kind: "renamed_identifier",
        line,
        original: text,
        mutated,
        fix: `Line ${line + 1} (\`${mutated.trim()}\`) refers to \`${bad}\`, which does not exist: it means \`${declared}\`, declared on line ${d + 1}.`,
      };
    }
    return undefined;
  },
  changed_literal(text, line) {
    const match = /(['"])([A-Za-z][\w -]{2,30})\1/.exec(text);
    if (!match) return undefined;
    const [whole, quote, good] = match as unknown as [string, string, string];
    const bad = `${good.slice(0, -1)}${good.endsWith("x") ? "y" : "x"}`;
    const mutated = `${text.slice(0, match.index)}${quote}${bad}${quote}${text.slice(match.index + whole.length)}`;
    return {
      kind: "changed_literal",
      line,
      original: text,
      mutated,
      fix: `Line ${line + 1} (\`${mutated.trim()}\`) has the string ${quote}${bad}${quote} where it should be ${quote}${good}${quote}.`,
    };
  },
};

/** Not blank, not a comment: a line a bug can be planted in. */
function isCode(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.length > 0 && !/^(\/\/|\/\*|\*|#!)/.test(trimmed);
}

/** The line with string and regex-free literal contents blanked, so operators inside strings are not found. */
function withoutStrings(text: string): string {
  return text
    .replace(/(['"`])(?:\\.|(?!\1).)*\1/g, (literal) => " ".repeat(literal.length))
    .replace(/\/\/.*$/, (c) => " ".repeat(c.length));
}

function balanced(text: string): boolean {
  const code = withoutStrings(text);
  let depth = 0;
  for (const ch of code) {
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch) && --depth < 0) return false;
  }
  return depth === 0;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
