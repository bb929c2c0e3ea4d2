import { type ParsedArgs, parseArgs } from "./argv.js";
import type { ClassRule } from "./examples.js";
import { optionTable } from "./options.js";
import type { ShellWord } from "./words.js";

/**
 * git sub-commands whose nature depends on their arguments (`git branch` lists, `git branch x` creates):
 * each is judged from all of its arguments, and read only when every option is one of its reading form
 * and the operands are what that form reads (patterns, names). Display options never make a writing
 * form read (`git config --show-origin core.pager x` sets core.pager). Anything else is a write.
 */
export const GIT_FORM_RULE: ClassRule = {
  why: "sub-commands that read or write by their arguments are judged from all of them",
  examples: [
    ["git config --show-origin core.pager 'touch x'", "block"],
    ["git config --show-scope --show-origin alias.x '!touch x'", "block"],
    ["git config --get --show-origin core.bare", "allow"],
    ["git config core.bare", "allow"],
    ["git config core.pager cat", "block"],
    ["git config --list --show-origin", "allow"],
    ["git config --list core.pager x", "block"],
    ["git config get core.bare", "allow"],
    ["git config --file ../outside/canary.txt --list", "block"],
    ["git config --get --add core.pager x", "block"],
    ["git config --blob HEAD:.env --list", "deny"],
    ["git branch -a", "allow"],
    ["git branch -v newbranch", "block"],
    ["git branch --format=%(refname) newbranch", "block"],
    ["git branch --list 'ma*'", "allow"],
    ["git branch --merged main", "allow"],
    ["git branch -v -d main", "block"],
    ["git tag -l", "allow"],
    ["git tag -n v1", "allow"],
    ["git tag --sort=refname v1", "block"],
    ["git tag v1", "block"],
    ["git remote -v", "allow"],
    ["git remote -v add x ../outside", "block"],
    ["git remote get-url origin", "allow"],
    ["git stash list", "allow"],
    ["git stash", "block"],
    ["git stash -q", "block"],
    ["git worktree list", "allow"],
    ["git worktree add ../outside/wt", "block"],
    ["git notes list", "allow"],
    ["git notes add -m x", "block"],
    ["git symbolic-ref HEAD", "allow"],
    ["git symbolic-ref HEAD refs/heads/x", "block"],
    ["git symbolic-ref --short HEAD refs/heads/x", "block"],
    ["git reflog -n 3", "allow"],
    ["git reflog expire --all", "block"],
    ["git update-ref refs/heads/x HEAD", "block"],
  ],
};

export type GitForm =
  | { readonly read: true; readonly paths: readonly ShellWord[] }
  | { readonly read: false; readonly why: string };

const WRITE = (why: string): GitForm => ({ read: false, why });
const READ = (paths: readonly ShellWord[] = []): GitForm => ({ read: true, paths });

const BRANCH = optionTable(
  "arvlt",
  `all remotes verbose list show-current contains=? no-contains=? merged=? no-merged=? points-at= sort=
   color=? no-color format= column=? no-column ignore-case omit-empty abbrev=? no-abbrev`,
);
const TAG = optionTable(
  "ln::i",
  `list sort= contains=? no-contains=? merged=? no-merged=? points-at= format= color=? column=? no-column
   ignore-case omit-empty`,
);
const CONFIG_ACTIONS = [
  "--get",
  "--get-all",
  "--get-regexp",
  "--get-urlmatch",
  "--list",
  "-l",
  "--get-color",
  "--get-colorbool",
];
const CONFIG = optionTable(
  "lzf:",
  `get get-all get-regexp get-urlmatch list get-color get-colorbool show-origin show-scope name-only null
   includes no-includes type= bool int bool-or-int path expiry-date default= local global system worktree
   file= blob= fixed-value`,
);
const LISTING = ["-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"];
const SIMPLE = optionTable("vqz", "verbose quiet porcelain short expire= null");

function parse(words: readonly ShellWord[], table: ReturnType<typeof optionTable>): ParsedArgs {
  return parseArgs(words, { values: new Set(table.values), optional: new Set(table.optional) });
}

function unknown(args: ParsedArgs, table: ReturnType<typeof optionTable>): string | undefined {
  return args.flags.map((f) => f.flag).find((flag) => !table.known.has(flag) && !/^-[0-9]+$/.test(flag));
}

/** The nature of `git SUB WORDS` for the sub-commands listed here; undefined for any other sub-command. */
export function gitForm(sub: string, words: readonly ShellWord[]): GitForm | undefined {
  switch (sub) {
    case "branch": {
      const args = parse(words, BRANCH);
      const bad = unknown(args, BRANCH);
      if (bad) return WRITE(`git branch ${bad} is not an option of its listing form`);
      // --list and the filters imply the listing form, where operands are patterns; without them an
      // operand names a branch to create.
      const listing = args.flags.some((f) => LISTING.includes(f.flag));
      if (args.positionals.length > 0 && !listing) return WRITE("git branch NAME creates a branch");
      return READ();
    }
    case "tag": {
      const args = parse(words, TAG);
      const bad = unknown(args, TAG);
      if (bad) return WRITE(`git tag ${bad} is not an option of its listing form`);
      const listing = args.flags.some((f) => LISTING.includes(f.flag) || f.flag === "-n");
      if (args.positionals.length > 0 && !listing) return WRITE("git tag NAME creates a tag");
      return READ();
    }
    case "config":
      return configForm(words);
    case "remote": {
      const args = parse(words, SIMPLE);
      const [action, ...rest] = args.positionals;
      if (unknown(args, SIMPLE) || args.flags.some((f) => f.flag !== "-v" && f.flag !== "--verbose"))
        return WRITE("git remote takes options outside its listing form");
      if (!action) return READ();
      // show and prune contact the remote; only get-url reads the config alone.
      return action.value === "get-url" && rest.length === 1
        ? READ()
        : WRITE(`git remote ${action.text} changes remotes or contacts them`);
    }
    case "stash": {
      const action = words[0]?.value;
      return action === "list" || action === "show"
        ? undefined
        : WRITE("git stash without list or show changes the stash or the work tree");
    }
    case "worktree":
    case "notes": {
      const args = parse(words, SIMPLE);
      const action = args.positionals[0]?.value;
      const reads = sub === "worktree" ? ["list"] : ["list", "show"];
      if (unknown(args, SIMPLE)) return WRITE(`git ${sub} takes options outside its listing form`);
      if (action === undefined ? sub === "notes" : reads.includes(action)) return READ();
      return WRITE(`git ${sub} ${action ?? ""} changes ${sub === "notes" ? "notes" : "worktrees"}`.trimEnd());
    }
    case "symbolic-ref": {
      const table = optionTable("qd", "quiet short no-recurse recurse delete");
      const args = parse(words, table);
      if (unknown(args, table) || args.flags.some((f) => f.flag === "-d" || f.flag === "--delete"))
        return WRITE("git symbolic-ref with these options changes a ref");
      return args.positionals.length <= 1 ? READ() : WRITE("git symbolic-ref NAME REF changes a ref");
    }
    case "reflog": {
      const action = words.find((word) => !word.value.startsWith("-"))?.value;
      if (action === "expire" || action === "delete" || action === "drop")
        return WRITE(`git reflog ${action} deletes reflog entries`);
      return undefined;
    }
    case "update-ref":
    case "replace":
    case "gc":
    case "prune":
    case "repack":
    case "pack-refs":
      return WRITE(`git ${sub} changes the repository`);
    default:
      return undefined;
  }
}

function configForm(words: readonly ShellWord[]): GitForm {
  // git 2.46's sub-command syntax: `git config get NAME`, `git config list`.
  const first = words[0]?.value;
  if (first === "get" || first === "list")
    return configForm([
      { ...(words[0] as ShellWord), value: first === "get" ? "--get" : "--list" },
      ...words.slice(1),
    ]);
  const args = parse(words, CONFIG);
  const bad = unknown(args, CONFIG);
  if (bad) return WRITE(`git config ${bad} is not an option of its reading form`);
  const actions = args.flags.filter((f) => CONFIG_ACTIONS.includes(f.flag));
  const count = args.positionals.length;
  // git refuses two actions at once; with none, one operand gets a value and two set one.
  const reading =
    actions.length === 1
      ? actions[0]?.flag === "--list" || actions[0]?.flag === "-l"
        ? count === 0
        : count >= 1 && count <= 2
      : actions.length === 0 && count === 1;
  if (!reading) return WRITE("git config with these operands sets or changes configuration");
  // --file names a file read as config; --blob REV:PATH a file of the repository (`--blob HEAD:creds`).
  const paths: ShellWord[] = [];
  for (const { flag, value } of args.flags) {
    if (!value) continue;
    if (flag === "-f" || flag === "--file") paths.push(value);
    const colon = value.value.indexOf(":");
    if (flag === "--blob" && colon !== -1) paths.push({ ...value, value: value.value.slice(colon + 1) });
  }
  return READ(paths);
}
