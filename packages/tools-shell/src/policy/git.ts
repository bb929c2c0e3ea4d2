import { parseArgs } from "./argv.js";
import { inspectRepository } from "./git-repository.js";
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

// Sub-command options that write a file, read one, or run a program. git's option parser accepts any
// unambiguous prefix (`--out=` is `--output=`, `--ext` is `--ext-diff`), so a prefix of one counts as it.
const DANGEROUS_LONG: Record<string, "write" | "read" | "exec"> = {
  "--output": "write",
  "--output-directory": "write",
  "--ext-diff": "exec",
  "--textconv": "exec",
  "--open-files-in-pager": "exec",
  "--exec": "exec",
  "--upload-pack": "exec",
  "--receive-pack": "exec",
  "--run": "exec",
  "--contents": "read",
  "--ignore-revs-file": "read",
  "--pathspec-from-file": "read",
};

function dangerousLong(flag: string): { name: string; kind: "write" | "read" | "exec" } | undefined {
  if (!flag.startsWith("--") || flag.length < 3) return undefined;
  for (const [name, kind] of Object.entries(DANGEROUS_LONG))
    if (name === flag || name.startsWith(flag)) return { name, kind };
  return undefined;
}

// Sub-commands that only read the repository, and the flags that would make them write or run programs.
const READ_ONLY = new Set([
  "status",
  "log",
  "diff",
  "show",
  "blame",
  "annotate",
  "rev-parse",
  "ls-files",
  "ls-tree",
  "cat-file",
  "describe",
  "shortlog",
  "merge-base",
  "name-rev",
  "rev-list",
  "grep",
  "whatchanged",
  "count-objects",
  "for-each-ref",
  "show-ref",
  "show-branch",
  "version",
  "diff-tree",
  "diff-files",
  "diff-index",
  "check-ignore",
  "check-attr",
]);

const SUBCOMMAND_VALUES = new Set([
  "--output",
  "--contents",
  "--ignore-revs-file",
  "--pathspec-from-file",
  "--output-directory",
  "-n",
  "--max-count",
  "-U",
  "--unified",
  "--format",
  "--pretty",
  "--author",
  "--since",
  "--until",
  "--grep",
  "-S",
  "-G",
  "--diff-filter",
  "-L",
  "-e",
  "--date",
  "-m",
  "--abbrev",
  "-A",
  "-B",
  "-C",
  "--skip",
  "--sort",
  "--contains",
  "--merged",
  "--no-merged",
  "--points-at",
]);

// Listing forms of sub-commands that otherwise change things.
function listingOnly(sub: string, flags: readonly string[], positionals: number): boolean {
  switch (sub) {
    case "branch":
      return (
        positionals === 0 &&
        flags.every((f) =>
          [
            "-a",
            "--all",
            "-r",
            "--remotes",
            "-v",
            "-vv",
            "--verbose",
            "--list",
            "-l",
            "--show-current",
            "--contains",
            "--merged",
            "--no-merged",
            "--sort",
            "--color",
            "--no-color",
            "--format",
            "--points-at",
            "--column",
            "--no-column",
          ].includes(f),
        )
      );
    case "tag":
      return (
        flags.every((f) =>
          ["-l", "--list", "-n", "--sort", "--contains", "--merged", "--points-at", "--format"].includes(f),
        ) &&
        (positionals === 0 || flags.includes("-l") || flags.includes("--list"))
      );
    case "remote":
      return positionals === 0 && flags.every((f) => f === "-v" || f === "--verbose");
    case "config":
      return (
        flags.some((f) =>
          ["--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--show-scope"].includes(f),
        ) &&
        !flags.some((f) =>
          [
            "--add",
            "--unset",
            "--unset-all",
            "--replace-all",
            "--edit",
            "-e",
            "--rename-section",
            "--remove-section",
          ].includes(f),
        )
      );
    case "stash":
      return false;
    case "worktree":
      return false;
    default:
      return false;
  }
}

/** Judge a git invocation: global options first (-C, -c, --git-dir), then the sub-command. */
export function judgeGit(
  words: readonly ShellWord[],
  verdict: Verdict,
  context: GitContext,
  unsaveable: () => void,
): void {
  const global = parseArgs(words, { values: GLOBAL_VALUES, stopAtPositional: true });
  let repository: ShellWord | undefined;
  for (const { flag, value } of global.flags) {
    if (!GLOBAL_KNOWN.has(flag)) verdict.hard.push(`git ${flag} is not a global option the policy knows`);
    if (flag === "-c" || flag === "--config-env" || flag === "--exec-path") {
      verdict.hard.push(
        `git ${flag} can set configuration that runs programs (core.pager, alias.*, core.fsmonitor)`,
      );
    } else if (flag === "--git-dir" || flag === "--work-tree") {
      verdict.hard.push(`git ${flag} picks a repository whose config the policy has not checked`);
      if (value) verdict.paths.push({ word: value, access: "read", names: true });
    } else if (flag === "-C" && value) {
      verdict.paths.push({ word: value, access: "read", names: true });
      repository = value;
    }
  }
  const [subWord, ...rest] = global.rest;
  if (!subWord) return;
  if (subWord.kind !== "static") {
    verdict.hard.push(`the git sub-command "${subWord.text}" is not static`);
    return;
  }
  const sub = subWord.value;
  // Abbreviations of the options that take a file are spelled out first, so their value is found.
  const spelled = rest.map((word) => {
    if (word.kind === "dynamic" || !word.value.startsWith("--") || word.value.includes("=")) return word;
    const danger = dangerousLong(word.value);
    return danger && danger.kind !== "exec" ? { ...word, value: danger.name } : word;
  });
  const args = parseArgs(spelled, { values: SUBCOMMAND_VALUES });
  const flags = args.flags.map((f) => f.flag);
  for (const { flag, value } of args.flags) {
    const danger = dangerousLong(flag);
    if (danger?.kind === "exec" || flag === "-O")
      verdict.hard.push(`git ${sub} ${flag} runs another program`);
    else if (danger && value)
      verdict.paths.push({ word: value, access: danger.kind === "write" ? "write" : "read" });
    else if (danger) verdict.hard.push(`git ${sub} ${flag} names a file the policy cannot see`);
    if (sub === "blame" && flag === "-S" && value) verdict.paths.push({ word: value, access: "read" });
  }
  if (
    !READ_ONLY.has(sub) &&
    !listingOnly(sub, flags, args.positionals.length) &&
    !(sub === "stash" && ["list", "show"].includes(rest[0]?.value ?? ""))
  ) {
    verdict.soft.push(`git ${sub} is not a read-only git command`);
    unsaveable();
    return;
  }
  const facts = repositoryFacts(repository, context);
  if (facts.risk) verdict.hard.push(facts.risk);
  const showsContents =
    SHOWS_CONTENTS.has(sub) ||
    ((sub === "log" || sub === "whatchanged") && flags.some((flag) => PATCH_FLAGS.includes(flag)));
  if (showsContents && facts.trackedSecret)
    verdict.hard.push(`the repository tracks ${facts.trackedSecret}, a secret git ${sub} can print`);
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

function repositoryFacts(
  repository: ShellWord | undefined,
  context: GitContext,
): { risk: string | undefined; trackedSecret: string | undefined } {
  let trackedSecret: string | undefined;
  for (const cwd of context.cwds) {
    if (cwd === null)
      return {
        risk: "git runs in a folder the policy cannot know, so its repository's config is unchecked",
        trackedSecret,
      };
    const start = repository ? landing(cwd, repository.value, context.realCache) : cwd;
    const facts = inspectRepository(start, (path) => context.workspace.isSecret(path));
    if (facts.risk) return facts;
    trackedSecret ??= facts.trackedSecret;
  }
  return { risk: undefined, trackedSecret };
}
