import { READ_ONLY_REASON } from "./judge.js";
import type { PolicyResult, SubcommandReport } from "./types.js";

/**
 * Whether a command may have changed files: "none" only when the policy's verdict proves it wrote
 * nothing; anything not fully understood is "possible". Consumers use it to skip work after a command
 * (a rescan of the repository), never to allow one: the verdict already decided that.
 */
export type CommandWrites = "none" | "possible";

// Only the judge's READ_ONLY_REASON proves a sub-command read and nothing else. Any other reason (an
// allow rule that lifted a doubt, a here-document or -c script it runs, an assignment) is not proof.

// Programs that read their operands and write only to their standard output, whatever their judged
// options (options that write name a write path, options that run programs make the verdict ask).
// Deliberately short: sed (its `w` command), uniq (its second operand), file (-C writes a compiled
// magic file), tree (-R writes HTML files), env/xargs/find (they run or delete things) and every
// interpreter stay out.
const READERS = new Set([
  "cat",
  "tac",
  "head",
  "tail",
  "wc",
  "nl",
  "ls",
  "du",
  "stat",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "diff",
  "cmp",
  "cut",
  "tr",
  "sort",
  "jq",
  "echo",
  "printf",
  "pwd",
  "true",
  "false",
  "test",
  "[",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "which",
  "date",
  "seq",
  "cd",
]);

// git sub-commands that read the repository; the judge has already refused their writing options.
const GIT_READERS = new Set(["status", "diff", "log", "show", "blame", "rev-parse", "ls-files", "grep"]);

// Output redirections that reach no file: duplicating a descriptor, or the null device.
const HARMLESS_REDIRECT = /\d*>>?&\d+-?|(?:\d+|&)?>>?\s*\/dev\/null(?=[\s;&|)]|$)/g;
// Text that starts a command inside a word, or writes through a process substitution.
const SUBSTITUTION = /`|\$\(|[<>]\(/;

/** Whether the command judged in `verdict` may have written anything (see CommandWrites). */
export function commandWrites(verdict: PolicyResult | undefined): CommandWrites {
  if (verdict?.decision !== "allow" || verdict.subcommands.length === 0) return "possible";
  // A second look at the text, independent of the parse: any output redirection left, or a
  // substitution, is not proof of anything, whatever the grammar made of it.
  const text = verdict.command.replace(HARMLESS_REDIRECT, " ");
  if (text.includes(">") || SUBSTITUTION.test(text)) return "possible";
  return verdict.subcommands.every(onlyReads) ? "none" : "possible";
}

function onlyReads(sub: SubcommandReport): boolean {
  if (sub.decision !== "allow" || sub.wrappers.length > 0) return false;
  if (sub.reasons.length !== 1 || sub.reasons[0] !== READ_ONLY_REASON) return false;
  if (sub.paths.some((use) => use.access !== "read")) return false;
  const [name, sub1] = sub.argv;
  if (name === "git") return sub1 !== undefined && GIT_READERS.has(sub1);
  return name !== undefined && READERS.has(name);
}
