import { parseArgs } from "./argv.js";
import { gitForm } from "./git-forms.js";
import { historySecret } from "./git-history.js";
import { GIT_READ_ONLY, GIT_STASH_SHOW, type GitOptions } from "./git-options.js";
import { inspectRepository, type RepositoryFacts } from "./git-repository.js";
import { landing } from "./paths.js";
import type { Verdict } from "./verdict.js";
import { type ShellWord, staticWord } from "./words.js";

/** What judging git needs from the check: where it may run, and a way to mark it unsaveable. */
export interface GitContext {
  readonly cwds: ReadonlySet<string | null>;
  readonly realCache: Map<string, string>;
  readonly workspace: { isSecret(path: string): boolean };
}

// Sub-commands that print file contents from the repository (log and whatchanged only with a patch).
const SHOWS_CONTENTS = new Set([
  "diff",
  "show",
  "grep",
  "cat-file",
  "blame",
  "annotate",
  "diff-tree",
  "diff-files",
  "diff-index",
  "stash",
]);
const PATCH_FLAGS = [
  "-p",
  "-u",
  "--patch",
  "-U",
  "--unified",
  "--patch-with-stat",
  "--patch-with-raw",
  "-W",
  "--function-context",
];

const GLOBAL_VALUES = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--config-env",
  "--exec-path",
  "--super-prefix",
  "--list-cmds",
  "--attr-source",
]);

// Global options git knows (it matches them exactly, without abbreviations).
const GLOBAL_KNOWN: ReadonlySet<string> = new Set([
  ...GLOBAL_VALUES,
  "-p",
  "--paginate",
  "-P",
  "--no-pager",
  "--bare",
  "--no-replace-objects",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--no-advice",
  "--version",
  "--help",
]);

// Options that make log and its kin print file contents (a patch, a pickaxe search over contents).
const CONTENT_FLAGS = new Set([
  ...PATCH_FLAGS,
  "-L",
  "-S",
  "-G",
  "--pickaxe-regex",
  "--pickaxe-all",
  "--find-object",
  "--word-diff",
  "--color-words",
  "--cc",
  "-c",
  "--dd",
  "-m",
  "--diff-merges",
  "--remerge-diff",
  "--textconv",
  "--binary",
]);
// --stat, --numstat, --name-only and --raw print names, counts and object ids, never contents: allowed.

// Sub-commands that print what history holds whatever their options.
const HISTORY_READERS = new Set(["show", "cat-file", "blame", "annotate", "diff-tree", "archive", "bundle"]);

// Options with which `git show` of a commit prints names and counts, never contents (no notes, no format
// that could print them), and those that make it print no patch.
const SHOW_NAMES_FLAGS = new Set([
  "--stat",
  "--numstat",
  "--shortstat",
  "--name-only",
  "--name-status",
  "--raw",
  "--summary",
  "--compact-summary",
  "--dirstat",
  "-s",
  "--no-patch",
]);
const SHOW_SAFE_FLAGS = new Set([
  ...SHOW_NAMES_FLAGS,
  "--oneline",
  "--abbrev-commit",
  "--no-abbrev-commit",
  "--color",
  "--no-color",
  "--decorate",
  "--no-decorate",
  "--no-notes",
  "--date",
  "-q",
  "--quiet",
]);
// A revision that can only be a commit: HEAD, or any name walked with ~ or ^ (a tag may name a blob, an
// object id may be one, REV:PATH is one).
const COMMIT_ONLY = /^(?:(?:HEAD|@)(?:[~^][0-9]*)*|[A-Za-z0-9_][\w./-]*(?:[~^][0-9]*)+)$/;

/** `git show` of commits with only name and count options: the commit message and file names, no contents. */
function showsNamesOnly(flags: readonly string[], operands: readonly string[]): boolean {
  return (
    flags.some((flag) => SHOW_NAMES_FLAGS.has(flag)) &&
    flags.every((flag) => SHOW_SAFE_FLAGS.has(flag)) &&
    operands.every((operand) => COMMIT_ONLY.test(operand))
  );
}

/**
 * Whether `git SUB` with these options and operands prints file contents from history (a commit, a
 * stash, an object), where a secret deleted from the index may still be.
 */
function readsHistory(sub: string, flags: readonly string[], operandWords: readonly string[]): boolean {
  const operands = operandWords.length;
  if (sub === "show" && showsNamesOnly(flags, operandWords)) return false;
  // Types, sizes and existence only: no object's contents.
  if (sub === "cat-file" && !flags.some((f) => f === "--batch" || f === "--batch-command"))
    return !flags.some((f) => ["-t", "-s", "-e", "--batch-check"].includes(f));
  if (HISTORY_READERS.has(sub)) return true;
  if (sub === "diff" || sub === "diff-index")
    return operands > 0 || flags.some((f) => ["--cached", "--staged", "--merge-base"].includes(f));
  if (sub === "grep") {
    const patternGiven = flags.some((f) => f === "-e" || f === "-f");
    return flags.includes("--cached") || operands > (patternGiven ? 0 : 1);
  }
  if (sub === "stash-show") return true;
  return flags.some((f) => CONTENT_FLAGS.has(f));
}

/**
 * git takes any unambiguous prefix of a long option (`--out=` is `--output=`). A prefix of an option that
 * names a file or runs a program is spelled out as that option, so its value is found and judged; any
 * other unknown spelling is left as it is, and asks.
 */
function spelledOut(words: readonly ShellWord[], options: GitOptions): ShellWord[] {
  const dangerous = [...(options.writes ?? []), ...(options.reads ?? []), ...(options.exec ?? [])].filter(
    (flag) => flag.startsWith("--"),
  );
  return words.map((word) => {
    if (word.kind === "dynamic" || !word.value.startsWith("--") || word.value === "--") return word;
    const eq = word.value.indexOf("=");
    const flag = eq === -1 ? word.value : word.value.slice(0, eq);
    if (options.table.known.has(flag)) return word;
    const full = dangerous.find((name) => name.startsWith(flag));
    return full ? { ...word, value: full + (eq === -1 ? "" : word.value.slice(eq)) } : word;
  });
}

/** Judge a git invocation: global options first (-C, -c, --git-dir), then the sub-command. */
export function judgeGit(
  words: readonly ShellWord[],
  verdict: Verdict,
  context: GitContext,
  unsaveable: () => void,
): void {
  const global = parseArgs(words, { values: GLOBAL_VALUES, stopAtPositional: true });
  // Each -C is taken from where the one before it left git: `-C a -C b` is a/b.
  let repository: ShellWord | undefined;
  let otherRepository = false;
  for (const { flag, value } of global.flags) {
    if (!GLOBAL_KNOWN.has(flag)) verdict.hard.push(`git ${flag} is not a global option the policy knows`);
    if (flag === "-c" || flag === "--config-env" || flag === "--exec-path") {
      verdict.hard.push(
        `git ${flag} can set configuration that runs programs (core.pager, alias.*, core.fsmonitor)`,
      );
    } else if (flag === "--git-dir" || flag === "--work-tree") {
      verdict.hard.push(`git ${flag} picks a repository whose config the policy has not checked`);
      if (flag === "--git-dir") otherRepository = true;
      if (value) verdict.paths.push({ word: value, access: "read", names: true });
    } else if (flag === "-C" && value) {
      repository =
        repository === undefined || value.value.startsWith("/")
          ? value
          : {
              ...value,
              kind: repository.kind === "static" ? value.kind : repository.kind,
              value: `${repository.value}/${value.value}`,
            };
      verdict.paths.push({ word: repository, access: "read", names: true });
    }
  }
  const [subWord, ...afterSub] = global.rest;
  if (!subWord) return;
  if (subWord.kind !== "static") {
    verdict.hard.push(`the git sub-command "${subWord.text}" is not static`);
    return;
  }
  let sub = subWord.value;
  let rest = afterSub;
  const form = gitForm(sub, rest);
  if (form && !form.read) {
    verdict.soft.push(form.why);
    unsaveable();
    return;
  }
  let options: GitOptions | undefined;
  if (form?.read) {
    for (const word of form.paths) verdict.paths.push({ word, access: "read" });
  } else if (sub === "stash") {
    // gitForm let only `stash list` (log's options) and `stash show` (diff's) through.
    options = rest[0]?.value === "show" ? GIT_STASH_SHOW : GIT_READ_ONLY.log;
    if (rest[0]?.value === "show") sub = "stash-show";
    rest = rest.slice(1);
  } else if (sub === "reflog") {
    // `git reflog [show|list|exists] [log options] [REF]`; gitForm refused expire and delete.
    if (["show", "list", "exists"].includes(rest[0]?.value ?? "")) rest = rest.slice(1);
    options = GIT_READ_ONLY.log;
  } else {
    options = GIT_READ_ONLY[sub];
    if (!options) {
      verdict.soft.push(`git ${sub} is not a read-only git command`);
      unsaveable();
      return;
    }
  }
  const facts = repositoryFacts(repository, context);
  if (facts.risk) verdict.hard.push(facts.risk);
  if (!options) return;
  const table = options.table;
  const args = parseArgs(spelledOut(rest, options), {
    values: new Set(table.values),
    optional: new Set(table.optional),
  });
  const flags = args.flags.map((f) => f.flag);
  for (const { flag, value } of args.flags) {
    if (!table.known.has(flag) && !/^-[0-9]+$/.test(flag)) {
      verdict.hard.push(`git ${sub} ${flag} is not an option the policy knows (git accepts abbreviations)`);
      continue;
    }
    if (options.exec?.includes(flag)) verdict.hard.push(`git ${sub} ${flag} runs another program`);
    if (options.reads?.includes(flag) && value) verdict.paths.push({ word: value, access: "read" });
    if (options.writes?.includes(flag) && value) verdict.paths.push({ word: value, access: "write" });
    if ((options.reads?.includes(flag) || options.writes?.includes(flag)) && !value)
      verdict.hard.push(`git ${sub} ${flag} names a file the policy cannot see`);
  }
  const operandValues = args.positionals.map((word) => word.value);
  const showsContents =
    (SHOWS_CONTENTS.has(sub) && !(sub === "show" && showsNamesOnly(flags, operandValues))) ||
    sub === "stash-show" ||
    ((sub === "log" || sub === "whatchanged") && flags.some((flag) => PATCH_FLAGS.includes(flag)));
  const history = readsHistory(sub, flags, operandValues);
  if (showsContents && facts.trackedSecret) {
    verdict.hard.push(`the repository tracks ${facts.trackedSecret}, a secret git ${sub} can print`);
    verdict.readsSecretObjects = true;
  }
  if (facts.repository && !facts.risk && history) {
    const held = historySecret(facts.repository, (path) => context.workspace.isSecret(path));
    if (held && "path" in held)
      verdict.hard.push(`the repository's history holds ${held.path}, a secret git ${sub} can print`);
    else if (held) verdict.hard.push(`git ${sub} reads history, and ${held.unknown}`);
    if (held) verdict.readsSecretObjects = true;
  }
  // A repository the policy could not inspect (or another one named by --git-dir) has a history nobody
  // checked: as with one git cannot list, printing from it counts as printing a secret.
  if ((showsContents || history) && (facts.risk || otherRepository)) verdict.readsSecretObjects = true;
  // An object id (not REV:PATH) or a batch may name an object no commit or index reaches any more (a
  // secret staged once, then removed): neither the index nor the history check sees its name.
  const contentBatch = flags.some((f) => f === "--batch" || f === "--batch-command");
  const metadataOnly = flags.some((f) => ["-t", "-s", "-e", "--batch-check"].includes(f));
  if (sub === "cat-file" && (contentBatch || !metadataOnly)) {
    const byPath = args.positionals.length > 0 && args.positionals.every((word) => word.value.includes(":"));
    if (!byPath || contentBatch) {
      verdict.hard.push(
        "git cat-file prints objects by id, which may hold a secret no commit reaches any more",
      );
      verdict.readsSecretObjects = true;
    }
  }
  if (flags.includes("--no-index"))
    for (const word of args.positionals) verdict.paths.push({ word, access: "read", recursive: true });
  // Revisions and paths share the operand slots; every operand is checked as a path, which revisions pass.
  const pathStart = sub === "grep" && !flags.includes("-e") && !flags.includes("-f") ? 1 : 0;
  const operands = args.positionals.slice(pathStart);
  for (const word of operands) {
    if (word.kind === "dynamic") {
      verdict.hard.push(`git argument "${word.text}" is not static`);
      continue;
    }
    verdict.paths.push({ word, access: "read" });
    // REV:PATH names a file in the repository: `git show HEAD:.env` reads a secret.
    const colon = word.value.indexOf(":");
    if (colon !== -1 && !word.value.startsWith("-") && colon < word.value.length - 1)
      verdict.paths.push({ word: { ...word, value: word.value.slice(colon + 1) }, access: "read" });
  }
  // git grep reads every tracked file below its pathspecs: the secret rule applies to all of them.
  if (sub === "grep")
    for (const word of operands.length > 0 ? operands : [staticWord(".")])
      verdict.paths.push({ word, access: "read", recursive: true });
}

/**
 * The repository git would use from every folder the shell may be in (git starts from the real folder),
 * judged as one: the first risk found, any tracked secret, and the repository when there is one.
 */
function repositoryFacts(repository: ShellWord | undefined, context: GitContext): RepositoryFacts {
  let trackedSecret: string | undefined;
  let found: RepositoryFacts["repository"];
  for (const cwd of context.cwds) {
    if (cwd === null || (repository && repository.kind !== "static"))
      return {
        risk: "git runs in a folder the policy cannot know, so its repository's config is unchecked",
        trackedSecret,
        repository: undefined,
      };
    const start = landing(cwd, repository ? repository.value : ".", context.realCache);
    const facts = inspectRepository(start, (path) => context.workspace.isSecret(path));
    if (facts.risk) return facts;
    trackedSecret ??= facts.trackedSecret;
    // Several folders, several repositories: each history is checked when it is read.
    if (found && facts.repository && found.commonDir !== facts.repository.commonDir)
      return { risk: "git may run in more than one repository here", trackedSecret, repository: undefined };
    found ??= facts.repository;
  }
  return { risk: undefined, trackedSecret, repository: found };
}
