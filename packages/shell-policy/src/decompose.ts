import type { SyntaxNode } from "./grammar.js";
import { hiddenCode } from "./inert.js";
import { type ShellWord, staticWord, wordOf } from "./words.js";

export interface Redirect {
  /** The operator: `>`, `>>`, `<`, `&>`…; `<<` and `<<<` carry a here-document's or here-string's text. */
  readonly op: string;
  readonly target: ShellWord;
}

export interface Assignment {
  readonly name: string;
  readonly value: ShellWord | undefined;
}

/** One simple command as written: its words (name first), assignment prefixes and redirections. */
export interface RawCommand {
  readonly words: readonly ShellWord[];
  readonly assignments: readonly Assignment[];
  readonly redirects: readonly Redirect[];
  readonly foundIn: readonly string[];
  /** Nesting of substitutions, subshells and nested scripts it sits in. */
  readonly depth: number;
  /**
   * Folders `cd` moved to earlier in the same `&&` chain: the command runs only if those succeeded
   * (`cd src && rg x .` searches src). Empty when nothing is known.
   */
  readonly cdChain?: readonly ShellWord[];
}

/** The walk's shared limits: it stops, and records why, instead of doing unbounded work. */
export interface WalkBudget {
  readonly maxSubcommands: number;
  readonly maxDepth: number;
  commands: number;
  exhausted: string | undefined;
}

interface Walk {
  readonly out: Decomposition;
  readonly budget: WalkBudget;
  /** How deep the walk is in the syntax tree right now. */
  levels: number;
  /** The `cd` targets of the `&&` chain being walked. */
  cdChain: readonly ShellWord[];
  /** `cd`s that head an `&&` chain: every other cd makes the chains unreliable (see decompose). */
  cdHeads: number;
  /** Inside a loop, a chain's cd may run again from where the last iteration left. */
  inLoop: boolean;
}

export interface Decomposition {
  readonly commands: RawCommand[];
  /** Structure the policy does not fully understand; any issue makes the verdict at least "ask". */
  readonly issues: string[];
}

// Nodes that only group statements: their named children are walked in order.
const CONTAINERS: Record<string, string | undefined> = {
  program: undefined,
  list: undefined,
  pipeline: "pipeline",
  subshell: "subshell",
  compound_statement: "group",
  do_group: undefined,
  negated_command: undefined,
  if_statement: "if",
  elif_clause: "if",
  else_clause: "if",
  while_statement: "loop",
  for_statement: "loop",
  c_style_for_statement: "loop",
  case_statement: "case",
  case_item: "case",
  test_command: "test",
  binary_expression: undefined,
  unary_expression: undefined,
  parenthesized_expression: undefined,
  ternary_expression: undefined,
  postfix_expression: undefined,
};

// Leaves that run nothing and name nothing the policy must check.
const INERT = new Set([
  "comment",
  "variable_name",
  "special_variable_name",
  "test_operator",
  "file_descriptor",
  "heredoc_start",
  "heredoc_end",
  "heredoc_content",
  "string_content",
  "regex",
  "extglob_pattern",
  "number",
  "word",
  "raw_string",
  "ansi_c_string",
]);

/** Break a parsed command line into the simple commands it runs, wherever they hide. */
export function decompose(
  root: SyntaxNode,
  budget: WalkBudget,
  depth: number,
  foundIn: readonly string[],
): Decomposition {
  const out: Decomposition = { commands: [], issues: [] };
  const w: Walk = { out, budget, levels: 0, cdChain: [], cdHeads: 0, inLoop: false };
  walk(root, w, depth, foundIn);
  // A cd that heads no chain (`cd a; …`, `{ cd b; }` inside a chain) moves the shell where chains do not
  // see it: then no command keeps its chain, and every folder the line may be in is judged.
  const cds = out.commands.filter((raw) => raw.words.some((word) => CD_LIKE.has(word.value))).length;
  if (cds !== w.cdHeads)
    for (let i = 0; i < out.commands.length; i++) {
      const raw = out.commands[i] as RawCommand;
      if (raw.cdChain) out.commands[i] = { ...raw, cdChain: undefined };
    }
  // Errors the walk did not meet on its way (a missing `}` inside a word) still mean a misread.
  if (root.hasError && out.issues.length === 0)
    out.issues.push("bash could read this differently: the parser found an error in it");
  return out;
}

// A plain word: letters, digits and marks that bash gives no meaning of their own.
const PLAIN_WORD = /^[A-Za-z0-9_./,:=+-]+$/;
// A plain command name starts with a letter, a digit, `_`, `.` or `/`, and has no `=` (an assignment)
// and no `+`: the grammar misreads `x+:`, and a line after a name `-`, when another word has an `=`.
const PLAIN_NAME = /^[A-Za-z0-9_./][A-Za-z0-9_./,:-]*$/;
// Plain words the grammar does not read as a simple command's: bash's reserved words, and the builtins
// it gives nodes of their own (declaration_command, unset_command).
const NOT_PLAIN = new Set([
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "time",
  "until",
  "while",
  "declare",
  "typeset",
  "export",
  "readonly",
  "local",
  "unset",
  "unsetenv",
  // The grammar reads it as a test operator even outside [[ ]].
  "==",
]);

/**
 * What `decompose` makes of a line that is one simple command of plain words separated by spaces, made
 * without a parser; undefined for any other line, which is left to the parser, whose reading is the
 * reference. The two are held to the same answer on generated lines, every pair of plain characters and
 * every reserved word next to each of them (test/plain-lines.test.ts).
 */
export function plainDecompose(
  script: string,
  budget: WalkBudget,
  depth: number,
  foundIn: readonly string[],
): Decomposition | undefined {
  const words = script.split(" ").filter((word) => word !== "");
  const name = words[0];
  if (name === undefined || !PLAIN_NAME.test(name)) return undefined;
  for (const word of words) if (!PLAIN_WORD.test(word) || NOT_PLAIN.has(word)) return undefined;
  const out: Decomposition = { commands: [], issues: [] };
  const w: Walk = { out, budget, levels: 0, cdChain: [], cdHeads: 0, inLoop: false };
  push(w, { words: words.map(staticWord), assignments: [], redirects: [], foundIn, depth });
  return out;
}

// Syntax nesting the walk follows before it gives up (a 16 KiB command can nest thousands of groups).
const MAX_LEVELS = 200;

function walk(node: SyntaxNode, w: Walk, depth: number, foundIn: readonly string[]): void {
  if (w.budget.exhausted) return;
  if (w.levels >= MAX_LEVELS) {
    w.budget.exhausted = `syntax nested deeper than ${MAX_LEVELS} levels`;
    return;
  }
  w.levels++;
  try {
    visit(node, w, depth, foundIn);
  } finally {
    w.levels--;
  }
}

function visit(node: SyntaxNode, w: Walk, depth: number, foundIn: readonly string[]): void {
  if (node.isMissing) {
    w.out.issues.push(`the command is incomplete (missing ${node.type})`);
    return;
  }
  if (node.isError) {
    w.out.issues.push(`bash could read this differently: the parser failed near "${clip(node.text)}"`);
    return;
  }
  if (depth > w.budget.maxDepth) {
    w.budget.exhausted = `nesting deeper than ${w.budget.maxDepth} levels`;
    return;
  }
  const type = node.type;
  if (type === "list") {
    // After `cd X &&`, the rest of the && chain runs in X; after `||` the cd may not have happened.
    const outer = w.cdChain;
    let chain = outer;
    for (const { item, op } of listItems(node)) {
      if (op === "||") chain = outer;
      w.cdChain = chain;
      walk(item, w, depth, foundIn);
      const target = w.inLoop ? undefined : cdTarget(item);
      if (target) w.cdHeads++;
      chain = target ? [...chain, target] : op === "||" ? outer : chain;
    }
    w.cdChain = outer;
    return;
  }
  if (type in CONTAINERS) {
    const code = hiddenCode(node);
    if (code) w.out.issues.push(code);
    if (type === "for_statement") {
      // The loop assigns its variable: `for PATH in /tmp; do ls; done` changes what ls is.
      const variable = node.childForFieldName("variable");
      if (variable)
        push(w, {
          words: [],
          assignments: [{ name: variable.text, value: undefined }],
          redirects: [],
          foundIn,
          depth,
        });
    }
    const label = CONTAINERS[type];
    const inner = label ? [...foundIn, label] : foundIn;
    const nested = type === "subshell" ? depth + 1 : depth;
    const inLoop = w.inLoop;
    if (label === "loop") w.inLoop = true;
    for (const child of node.namedChildren) if (child) walk(child, w, nested, inner);
    w.inLoop = inLoop;
    return;
  }
  if (INERT.has(type)) return;
  switch (type) {
    case "command":
      command(node, [], w, depth, foundIn);
      return;
    case "file_redirect": {
      // `$(<file)` reads a file without running a command: judged as a bare redirection.
      const redirects = redirectsOf(node, w, depth, foundIn);
      if (redirects.length > 0) push(w, { words: [], assignments: [], redirects, foundIn, depth });
      return;
    }
    case "redirected_statement":
      redirected(node, w, depth, foundIn);
      return;
    case "variable_assignment":
    case "variable_assignments": {
      const assignments = collectAssignments(node, w, depth, foundIn);
      push(w, { words: [], assignments, redirects: [], foundIn, depth });
      return;
    }
    case "declaration_command":
    case "unset_command":
      declaration(node, w, depth, foundIn);
      return;
    case "function_definition": {
      const name = node.childForFieldName("name")?.text ?? "?";
      w.out.issues.push(`defines a shell function "${clip(name)}", which can shadow any command name`);
      const body = node.childForFieldName("body");
      if (body) walk(body, w, depth, [...foundIn, "function body"]);
      return;
    }
    case "command_substitution":
    case "process_substitution": {
      const label = type === "command_substitution" ? "command substitution" : "process substitution";
      for (const child of node.namedChildren) if (child) walk(child, w, depth + 1, [...foundIn, label]);
      return;
    }
    case "string":
    case "concatenation":
    case "expansion":
    case "simple_expansion":
    case "arithmetic_expansion":
    case "subscript":
    case "array":
    case "heredoc_body":
    case "herestring_redirect":
    case "translated_string":
    case "case_item_value":
      substitutionsIn(node, w, depth, foundIn);
      return;
    default:
      w.out.issues.push(`unsupported shell syntax (${type}) near "${clip(node.text)}"`);
  }
}

/**
 * The statements of an `a && b || c` chain, in order. The grammar nests lists to the left, one level
 * per operator; unnesting them in a loop keeps a long chain from costing one stack frame per command.
 */
function listItems(node: SyntaxNode): { item: SyntaxNode; op: string | undefined }[] {
  const tails: { item: SyntaxNode; op: string | undefined }[][] = [];
  let current: SyntaxNode = node;
  while (current.type === "list") {
    const children = current.namedChildren.filter((child): child is SyntaxNode => child !== null);
    const op = current.children.find((child) => child?.type === "&&" || child?.type === "||")?.type;
    const [first, ...rest] = children;
    tails.push(rest.map((item) => ({ item, op })));
    if (!first) break;
    current = first;
  }
  const items: { item: SyntaxNode; op: string | undefined }[] =
    current.type === "list" ? [] : [{ item: current, op: undefined }];
  for (let i = tails.length - 1; i >= 0; i--) items.push(...(tails[i] ?? []));
  return items;
}

const CD_LIKE = new Set(["cd", "pushd", "popd"]);

/** The folder of a plain `cd DIR` (one static operand, no options), or undefined. */
function cdTarget(node: SyntaxNode): ShellWord | undefined {
  if (node.type !== "command" || node.childForFieldName("name")?.text !== "cd") return undefined;
  const args = node.childrenForFieldName("argument").filter((child) => child !== null);
  if (args.length !== 1 || node.namedChildCount !== 2) return undefined;
  const word = wordOf(args[0] as SyntaxNode);
  return word.kind === "static" && !word.value.startsWith("-") && word.value !== "" ? word : undefined;
}

/** Walk only the command and process substitutions inside a word: they run before the word exists. */
function substitutionsIn(node: SyntaxNode, w: Walk, depth: number, foundIn: readonly string[]): void {
  const code = hiddenCode(node);
  if (code) w.out.issues.push(code);
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.isError || child.isMissing) {
      walk(child, w, depth, foundIn);
    } else if (child.type === "command_substitution" || child.type === "process_substitution") {
      walk(child, w, depth, foundIn);
    } else if (child.namedChildCount > 0) {
      substitutionsIn(child, w, depth, foundIn);
    }
  }
}

function command(
  node: SyntaxNode,
  redirects: Redirect[],
  w: Walk,
  depth: number,
  foundIn: readonly string[],
): void {
  const words: ShellWord[] = [];
  const assignments: Assignment[] = [];
  const own = [...redirects];
  for (let i = 0; i < node.namedChildCount; i++) {
    const child = node.namedChild(i);
    if (!child) continue;
    const field = node.fieldNameForNamedChild(i);
    if (child.isError || child.isMissing) {
      walk(child, w, depth, foundIn);
    } else if (child.type === "variable_assignment") {
      assignments.push(...collectAssignments(child, w, depth, foundIn));
    } else if (
      child.type === "file_redirect" ||
      child.type === "heredoc_redirect" ||
      child.type === "herestring_redirect"
    ) {
      own.push(...redirectsOf(child, w, depth, foundIn));
    } else if (field === "name" || field === "argument" || child.type === "command_name") {
      words.push(wordOf(child));
      if (child.type === "command_substitution" || child.type === "process_substitution")
        walk(child, w, depth, foundIn);
      else substitutionsIn(child, w, depth, foundIn);
    } else if (child.type !== "comment") {
      w.out.issues.push(`unsupported part of a command (${child.type}) near "${clip(child.text)}"`);
    }
  }
  push(w, { words, assignments, redirects: own, foundIn, depth });
}

function redirected(node: SyntaxNode, w: Walk, depth: number, foundIn: readonly string[]): void {
  const redirects: Redirect[] = [];
  for (const child of node.childrenForFieldName("redirect")) {
    if (child) redirects.push(...redirectsOf(child, w, depth, foundIn));
  }
  for (const child of node.namedChildren) {
    if (child && (child.isError || child.isMissing)) walk(child, w, depth, foundIn);
  }
  const body = node.childForFieldName("body");
  if (body?.type === "command") {
    command(body, redirects, w, depth, foundIn);
    return;
  }
  if (body) walk(body, w, depth, foundIn);
  // Redirections of a group or loop apply to all of it: judged once, as a command with no words.
  if (redirects.length > 0) push(w, { words: [], assignments: [], redirects, foundIn, depth });
}

// Parts of a here-document redirection that are the document itself.
const HEREDOC_PARTS = new Set(["heredoc_start", "heredoc_body", "heredoc_end"]);

/**
 * A here-document as the text its command reads. Static only when bash expands nothing in it: a quoted
 * delimiter, or a body without `$`, backquotes or backslashes.
 */
function heredocInput(node: SyntaxNode): Redirect {
  const start = node.namedChildren.find((part) => part?.type === "heredoc_start")?.text ?? "";
  const body = node.namedChildren.find((part) => part?.type === "heredoc_body");
  const text = body?.text ?? "";
  const quoted = /["'\\]/.test(start);
  const expands = !quoted && /[$`\\]/.test(text);
  return {
    op: node.text.startsWith("<<") ? "<<" : "n<<",
    target: { text: `<<${start}`, value: text, kind: expands ? "dynamic" : "static" },
  };
}

function redirectsOf(node: SyntaxNode, w: Walk, depth: number, foundIn: readonly string[]): Redirect[] {
  if (node.type === "heredoc_redirect") {
    // The grammar hangs the rest of the line after `<<EOF` (`> file`, `| sh`, `&& cmd`) on the
    // here-document: its redirections belong to the command, its commands are judged like any other.
    const found: Redirect[] = [heredocInput(node)];
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "heredoc_body") {
        substitutionsIn(child, w, depth, foundIn);
        // The grammar leaves backquotes in an unquoted here-document as text; bash runs them.
        const start = node.namedChildren.find((part) => part?.type === "heredoc_start")?.text ?? "";
        if (!/["'\\]/.test(start) && /(?<!\\)`/.test(child.text))
          w.out.issues.push("the here-document holds a backquoted command, which bash runs");
      } else if (HEREDOC_PARTS.has(child.type)) continue;
      else if (child.type === "file_redirect" || child.type === "herestring_redirect")
        found.push(...redirectsOf(child, w, depth, foundIn));
      else walk(child, w, depth, [...foundIn, "after a here-document"]);
    }
    return found;
  }
  if (node.hasError) {
    w.out.issues.push(`a redirection the parser could not read: "${clip(node.text)}"`);
    return [];
  }
  substitutionsIn(node, w, depth, foundIn);
  if (node.type === "herestring_redirect") {
    const value = node.namedChildren.find((child) => child !== null && child.type !== "file_descriptor");
    const word = value ? wordOf(value) : staticWord("");
    return [
      { op: node.text.startsWith("<<<") ? "<<<" : "n<<<", target: { ...word, value: `${word.value}\n` } },
    ];
  }
  if (node.type !== "file_redirect") return [];
  let op = "";
  for (const child of node.children) if (child && !child.isNamed) op += child.type;
  const destination = node.childForFieldName("destination");
  if (!destination) {
    w.out.issues.push(`a redirection without a target: "${clip(node.text)}"`);
    return [];
  }
  return [
    {
      op,
      target:
        destination.type === "number" && op.includes("&")
          ? { text: destination.text, value: destination.text, kind: "fd" }
          : wordOf(destination),
    },
  ];
}

/**
 * `declare`, `export`, `local`, `readonly`, `typeset`, `unset`: judged as commands (their options and
 * name operands), with the NAME=VALUE operands as assignments.
 */
function declaration(node: SyntaxNode, w: Walk, depth: number, foundIn: readonly string[]): void {
  const keyword = node.child(0);
  const words: ShellWord[] = [staticWord(keyword?.type ?? "declare")];
  const assignments: Assignment[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "variable_assignment")
      assignments.push(...collectAssignments(child, w, depth, foundIn));
    else {
      words.push(child.type === "variable_name" ? staticWord(child.text) : wordOf(child));
      substitutionsIn(child, w, depth, foundIn);
    }
  }
  push(w, { words, assignments, redirects: [], foundIn, depth });
}

function collectAssignments(
  node: SyntaxNode,
  w: Walk,
  depth: number,
  foundIn: readonly string[],
): Assignment[] {
  if (node.type === "variable_assignment") {
    const value = node.childForFieldName("value");
    substitutionsIn(node, w, depth, foundIn);
    if (value?.type === "array") {
      // `a=([i]=1)` evaluates the subscript i as arithmetic in an indexed array.
      for (const match of value.text.matchAll(/\[([^\]]*)\]\s*\+?=/g))
        if (!/^(?:-?[0-9]+|[@*])$/.test(match[1] ?? ""))
          w.out.issues.push(
            `the array subscript [${clip(match[1] ?? "")}] is evaluated as arithmetic, which runs code`,
          );
    }
    const name = node.childForFieldName("name")?.text ?? "";
    // `NAME=` assigns the empty string (undefined is kept for values the policy cannot know).
    return [{ name, value: value ? wordOf(value) : staticWord("") }];
  }
  const found: Assignment[] = [];
  for (const child of node.namedChildren)
    if (child?.type === "variable_assignment") found.push(...collectAssignments(child, w, depth, foundIn));
  return found;
}

function push({ out, budget, cdChain }: Walk, command: RawCommand): void {
  budget.commands++;
  if (budget.commands > budget.maxSubcommands) {
    budget.exhausted = `more than ${budget.maxSubcommands} sub-commands`;
    return;
  }
  out.commands.push(cdChain.length > 0 ? { ...command, cdChain } : command);
}

export function clip(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
