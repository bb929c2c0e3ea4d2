import { parseArgs } from "./argv.js";
import type { Verdict } from "./verdict.js";
import type { ShellWord } from "./words.js";

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

const WRITE_FLAGS = ["--output"];
const EXEC_FLAGS = [
  "--ext-diff",
  "--exec",
  "--upload-pack",
  "--receive-pack",
  "-O",
  "--open-files-in-pager",
  "--textconv",
  "--run",
];
const SUBCOMMAND_VALUES = new Set([
  "--output",
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
export function judgeGit(words: readonly ShellWord[], verdict: Verdict): void {
  const global = parseArgs(words, { values: GLOBAL_VALUES, stopAtPositional: true });
  for (const { flag, value } of global.flags) {
    if (flag === "-c" || flag === "--config-env" || flag === "--exec-path") {
      verdict.hard.push(
        `git ${flag} can set configuration that runs programs (core.pager, alias.*, core.fsmonitor)`,
      );
    } else if ((flag === "-C" || flag === "--git-dir" || flag === "--work-tree") && value) {
      verdict.paths.push({ word: value, access: "read" });
    }
  }
  const [subWord, ...rest] = global.rest;
  if (!subWord) return;
  if (subWord.kind !== "static") {
    verdict.hard.push(`the git sub-command "${subWord.text}" is not static`);
    return;
  }
  const sub = subWord.value;
  const args = parseArgs(rest, { values: SUBCOMMAND_VALUES });
  const flags = args.flags.map((f) => f.flag);
  for (const { flag, value } of args.flags) {
    // The written file is checked like any write: inside the workspace only, and asked in read-only mode.
    if (WRITE_FLAGS.includes(flag) && value) verdict.paths.push({ word: value, access: "write" });
    if (EXEC_FLAGS.includes(flag)) verdict.hard.push(`git ${sub} ${flag} runs another program`);
  }
  if (
    !READ_ONLY.has(sub) &&
    !listingOnly(sub, flags, args.positionals.length) &&
    !(sub === "stash" && ["list", "show"].includes(rest[0]?.value ?? ""))
  ) {
    verdict.soft.push(`git ${sub} is not a read-only git command`);
    return;
  }
  // Revisions and paths share the operand slots; every operand is checked as a path, which revisions pass.
  const pathStart = sub === "grep" && !flags.includes("-e") && !flags.includes("-f") ? 1 : 0;
  for (const word of args.positionals.slice(pathStart)) {
    if (word.kind === "dynamic") verdict.hard.push(`git argument "${word.text}" is not static`);
    else verdict.paths.push({ word, access: "read" });
  }
}
