import type { ClassRule } from "./examples.js";
import { type OptionTable, optionTable } from "./options.js";

/**
 * The options of git's read-only sub-commands, as tables of what each takes (the same getopt-style
 * notation as specs.ts), and the ones whose value is a file read or written, a list of paths, or that run
 * a program. Any option outside a sub-command's table asks: git's option parser accepts unambiguous
 * prefixes (`--out=` is `--output=`), so a spelling the table does not hold may be a dangerous one.
 */
export const GIT_OPTION_RULE: ClassRule = {
  why: "git's read-only sub-commands have real option tables; values naming files are judged as paths",
  examples: [
    ["git log --oneline --graph -n 5", "allow"],
    ["git log -5 --stat --format=%H%n%an", "allow"],
    ["git diff --stat -M HEAD -- src", "allow"],
    ["git status -sb -uno", "allow"],
    ["git blame -L 1,2 src/b.ts", "allow"],
    ["git ls-files -co --exclude-standard", "allow"],
    ["git rev-parse --show-toplevel --abbrev-ref HEAD", "allow"],
    ["git log --outp=../outside/w", "deny"],
    ["git log --output ../outside/w", "deny"],
    ["git diff -O../outside/canary.txt", "block"],
    ["git diff -O .env", "deny"],
    ["git blame --cont=../outside/canary.txt src/a.ts", "block"],
    ["git blame -S ../outside/canary.txt src/a.ts", "block"],
    ["git blame --ignore-revs-file .env src/a.ts", "deny"],
    ["git grep -f ../outside/canary.txt", "block"],
    ["git ls-files -X ../outside/canary.txt -o", "block"],
    ["git log --pathspec-from-file=list.txt", "block"],
    ["git log --show-signature -1", "block"],
    ["git diff --ext", "block"],
    ["git log --no-such-option", "block"],
    ["git rev-parse --resolve-git-dir ../outside", "block"],
  ],
};

export interface GitOptions {
  readonly table: OptionTable;
  /** Options whose value is a file git reads (`--contents`, `-O` orderfile). */
  readonly reads?: readonly string[];
  /** Options whose value is a file git writes (`--output`). */
  readonly writes?: readonly string[];
  /** Options whose value is a file of pathspecs or revisions the policy cannot see. */
  readonly lists?: readonly string[];
  /** Options that run a program (an external diff, a pager, gpg). */
  readonly exec?: readonly string[];
}

// Diff output options (diff, show, log -p, diff-tree, diff-files, diff-index, stash show).
const DIFF_SHORT = "pusWzM::C::B::Dl:S:G:O:RabwI:X::U:";
const DIFF_LONG = `patch no-patch unified= output= output-indicator-new= output-indicator-old=
  output-indicator-context= raw patch-with-raw indent-heuristic no-indent-heuristic minimal patience
  histogram anchored= diff-algorithm= stat=? stat-width= stat-name-width= stat-graph-width= stat-count=
  compact-summary numstat shortstat dirstat=? cumulative dirstat-by-file=? summary patch-with-stat
  name-only name-status submodule=? color=? no-color color-moved=? no-color-moved color-moved-ws=
  no-color-moved-ws word-diff=? word-diff-regex= color-words=? no-renames rename-empty no-rename-empty
  check ws-error-highlight= full-index binary abbrev=? no-abbrev break-rewrites=? find-renames=?
  find-copies=? find-copies-harder irreversible-delete diff-filter= find-object= pickaxe-all
  pickaxe-regex skip-to= rotate-to= relative=? no-relative text ignore-cr-at-eol ignore-space-at-eol
  ignore-space-change ignore-all-space ignore-blank-lines ignore-matching-lines= inter-hunk-context=
  function-context exit-code quiet ext-diff no-ext-diff textconv no-textconv ignore-submodules=?
  src-prefix= dst-prefix= no-prefix default-prefix line-prefix= ita-invisible-in-index
  ita-visible-in-index cached staged merge-base no-index base ours theirs cc dd combined-all-paths
  remerge-diff diff-merges= no-diff-merges`;

// Commit walking and formatting (log, show, whatchanged, rev-list, shortlog, stash list).
const REV_SHORT = "n:iEFPgL:cmtr";
const REV_LONG = `max-count= skip= since= after= since-as-filter= until= before= author= committer=
  grep-reflog= grep= all-match invert-grep regexp-ignore-case basic-regexp extended-regexp
  fixed-strings perl-regexp remove-empty merges no-merges min-parents= max-parents= no-min-parents
  no-max-parents first-parent exclude-first-parent-only not all branches=? tags=? remotes=? glob=
  exclude= exclude-hidden= reflog alternate-refs single-worktree ignore-missing bisect stdin
  cherry-mark cherry-pick left-only right-only cherry walk-reflogs merge boundary
  simplify-by-decoration full-history dense sparse simplify-merges ancestry-path=? show-pulls
  date-order author-date-order topo-order reverse no-walk=? do-walk pretty=? format= abbrev-commit
  no-abbrev-commit oneline encoding= expand-tabs=? no-expand-tabs notes=? no-notes show-notes=?
  show-notes-by-default standard-notes no-standard-notes show-signature relative-date date= parents
  children left-right graph no-graph show-linear-break=? count source use-mailmap mailmap
  no-mailmap no-use-mailmap decorate=? no-decorate decorate-refs= decorate-refs-exclude=
  clear-decorations log-size follow no-follow`;

const DIFF: GitOptions = {
  table: optionTable(DIFF_SHORT, DIFF_LONG),
  reads: ["-O"],
  writes: ["--output"],
  exec: ["--ext-diff"],
};
const LOG: GitOptions = {
  table: optionTable(DIFF_SHORT + REV_SHORT, `${DIFF_LONG} ${REV_LONG}`),
  reads: ["-O"],
  writes: ["--output"],
  exec: ["--ext-diff", "--show-signature"],
};
const BLAME: GitOptions = {
  table: optionTable(
    "bltsfnpcewM::C::L:S:",
    `root show-stats progress no-progress score-debug show-name show-number porcelain line-porcelain
     incremental encoding= contents= date= reverse first-parent abbrev=? ignore-rev= ignore-revs-file=
     color-lines color-by-age minimal since=`,
  ),
  reads: ["--contents", "--ignore-revs-file", "-S"],
};

/** `git stash show`: diff's options and the untracked parts of a stash. */
export const GIT_STASH_SHOW: GitOptions = {
  ...DIFF,
  table: optionTable(DIFF_SHORT, `${DIFF_LONG} include-untracked only-untracked`),
};

/** The read-only sub-commands and their options. */
export const GIT_READ_ONLY: Readonly<Record<string, GitOptions>> = {
  status: {
    table: optionTable(
      "sbu::zvM::",
      `short branch show-stash porcelain=? long verbose untracked-files=? ignore-submodules=? ignored=?
       column=? no-column ahead-behind no-ahead-behind renames no-renames find-renames=? null`,
    ),
  },
  log: LOG,
  whatchanged: LOG,
  show: LOG,
  diff: DIFF,
  "diff-files": { ...DIFF, table: optionTable(`${DIFF_SHORT}qc0123`, DIFF_LONG) },
  "diff-index": { ...DIFF, table: optionTable(`${DIFF_SHORT}m`, DIFF_LONG) },
  "diff-tree": {
    ...LOG,
    table: optionTable(`${DIFF_SHORT}${REV_SHORT}v`, `${DIFF_LONG} ${REV_LONG} root no-commit-id always`),
  },
  blame: BLAME,
  annotate: BLAME,
  "rev-list": {
    ...LOG,
    table: optionTable(
      DIFF_SHORT + REV_SHORT,
      `${DIFF_LONG} ${REV_LONG} objects objects-edge objects-edge-aggressive indexed-objects unpacked
       object-names no-object-names filter= no-filter filter-print-omitted missing= exclude-promisor-objects
       header timestamp bisect-vars bisect-all disk-usage=? in-commit-order no-kept-objects=? progress=`,
    ),
  },
  shortlog: {
    ...LOG,
    table: optionTable(`${REV_SHORT}sew::`, `${REV_LONG} summary numbered email committer group=`),
  },
  "rev-parse": {
    table: optionTable(
      "q",
      `git-dir show-toplevel abbrev-ref=? short=? verify quiet symbolic symbolic-full-name
       is-inside-work-tree is-inside-git-dir is-bare-repository is-shallow-repository show-prefix
       show-cdup git-common-dir absolute-git-dir show-superproject-working-tree shared-index-path
       show-object-format=? show-ref-format all branches=? tags=? remotes=? glob= exclude= disambiguate=
       since= until= after= before= default= prefix= local-env-vars resolve-git-dir= git-path= path-format=
       sq sq-quote keep-dashdash stop-at-non-option stuck-long not revs-only no-revs flags no-flags`,
    ),
    reads: ["--resolve-git-dir"],
  },
  "ls-files": {
    table: optionTable(
      "cdmoisuktzvfx:X:",
      `cached deleted modified others ignored stage unmerged killed directory no-empty-directory eol
       exclude= exclude-from= exclude-per-directory= exclude-standard error-unmatch with-tree= full-name
       recurse-submodules abbrev=? debug deduplicate format= sparse resolve-undo`,
    ),
    reads: ["-X", "--exclude-from"],
  },
  "ls-tree": {
    table: optionTable(
      "drtlz",
      "long name-only name-status object-only full-name full-tree abbrev=? format=",
    ),
  },
  "cat-file": {
    table: optionTable(
      "tsepZz",
      `textconv filters batch=? batch-check=? batch-command=? batch-all-objects buffer follow-symlinks
       unordered allow-unknown-type path= use-mailmap mailmap no-mailmap`,
    ),
  },
  describe: {
    table: optionTable(
      "",
      `all tags contains abbrev=? candidates= exact-match debug long match= exclude= always first-parent
       dirty=? broken=?`,
    ),
  },
  "merge-base": { table: optionTable("a", "all octopus independent is-ancestor fork-point") },
  "name-rev": {
    table: optionTable("", "tags refs= exclude= all stdin annotate-stdin name-only no-undefined always"),
  },
  grep: {
    table: optionTable(
      "aIiwvhHEGFPnlLcoqzpWrf:e:A:B:C:m:O::",
      `cached untracked no-index no-exclude-standard exclude-standard recurse-submodules text textconv
       no-textconv ignore-case max-depth= recursive no-recursive word-regexp invert-match full-name
       extended-regexp basic-regexp fixed-strings perl-regexp line-number column files-with-matches
       name-only files-without-match null only-matching count color=? no-color break heading
       show-function function-context threads= and or not all-match quiet context= before-context=
       after-context= max-count= open-files-in-pager=?`,
    ),
    reads: ["-f"],
    exec: ["-O", "--open-files-in-pager"],
  },
  "count-objects": { table: optionTable("vH", "verbose human-readable") },
  "for-each-ref": {
    table: optionTable(
      "s",
      `count= shell perl python tcl sort= format= color=? points-at= merged=? no-merged=? contains=?
       no-contains=? ignore-case omit-empty exclude= include-root-refs stdin`,
    ),
  },
  "show-ref": {
    table: optionTable("dsq", "head tags branches heads dereference hash=? abbrev=? verify exists quiet"),
  },
  "show-branch": {
    table: optionTable(
      "argn",
      `all remotes current color=? no-color more=? list merge-base independent no-name sha1-name sparse
       topo-order date-order reflog=?`,
    ),
  },
  version: { table: optionTable("", "build-options") },
  "check-ignore": { table: optionTable("qvnz", "quiet verbose stdin non-matching no-index") },
  "check-attr": { table: optionTable("az", "all cached stdin source=") },
};
