import { type ParsedArgs, parseArgs } from "./argv.js";
import type { ClassRule } from "./examples.js";
import { type OptionTable, optionTable } from "./options.js";

/**
 * How a command the policy knows behaves: which options it has (any other is asked about: GNU tools
 * accept abbreviations, so an unknown spelling may be a known dangerous option), which words are paths,
 * and which options make it write, run programs or read folders recursively.
 */
export interface CommandSpec {
  /** "read": positionals are paths it reads; "none": positionals are not paths; "write": paths it writes. */
  readonly kind: "read" | "none" | "write";
  /** Every option it has; undefined for commands that print their arguments (echo) and take none that matter. */
  readonly options?: OptionTable;
  /** `-NUM` is a count (head -5, grep -3). */
  readonly numeric?: boolean;
  readonly readPathFlags?: readonly string[];
  /**
   * Flags whose value is a file holding the names of the files it reads (`--files0-from`, `file -f`):
   * the names are data the policy does not see when it judges (the list may be written earlier in the
   * same line, or be standard input), so these ask; the list file itself is judged as a read.
   */
  readonly listFlags?: readonly string[];
  readonly writePathFlags?: readonly string[];
  /** Flags whose value is a folder it reads below (jq's module path). */
  readonly recursivePathFlags?: readonly string[];
  /** The operand at this index (from 0) is a file it writes, not one it reads (uniq IN OUT). */
  readonly outputOperand?: number;
  /** Flags that make it modify files. */
  readonly writeFlags?: readonly string[];
  /** Flags that make it run other programs. */
  readonly execFlags?: readonly string[];
  /** Flags that make it read folders recursively, so every file below a folder operand is read. */
  readonly recursiveFlags?: readonly string[];
  /** It reads folder operands recursively whatever its flags (rg), unless `namesFlags` make it list names only. */
  readonly recursive?: boolean;
  /** Flags after which it prints only names, not contents (rg --files, grep -l is still contents). */
  readonly namesFlags?: readonly string[];
  /** It shows names and metadata of its operands, never their contents (ls, stat): the secret rule does not apply. */
  readonly names?: boolean;
  /** The first positional is a pattern or script, not a path, unless one of `patternFlags` supplies it. */
  readonly patternFirst?: boolean;
  readonly patternFlags?: readonly string[];
  /** "ask": asks even with every path inside (destructive or permission-changing), unless a rule allows it. */
  readonly always?: "ask";
  /** A custom check on the parsed arguments: a reason to ask that a rule may lift, or undefined. */
  readonly check?: (args: ParsedArgs) => string | undefined;
  /** A custom check whose reason no rule lifts (code hidden in an argument). */
  readonly hardCheck?: (args: ParsedArgs) => string | undefined;
  readonly singleDashLong?: boolean;
}

/**
 * Options whose value is a file of file names: the names are not judged (they are data, possibly written
 * earlier in the same line), so the command asks. `grep -f` reads patterns, not names: its file is a read.
 */
export const FILE_LIST_RULE: ClassRule = {
  why: "an option that takes a file of file names asks; the list file itself is judged as a read",
  examples: [
    ["printf '.env\\0' > l0 && sort --files0-from=l0", "block"],
    ["sort --files0-from l0 < /dev/null", "block"],
    ["wc --files0-from=- < list.txt", "block"],
    ["du --files0-from=list.txt", "block"],
    ["file -f list.txt", "block"],
    ["file --files-from=list.txt", "block"],
    ["tar -cf x.tar -T list.txt", "block"],
    ["tar -cf x.tar --files-from=list.txt", "block"],
    ["rsync --files-from=list.txt . x", "block"],
    ["cpio -o < list.txt", "block"],
    ["strings @list.txt", "block"],
    ["find . -files0-from list.txt", "block"],
    ["xargs -a list.txt cat", "block"],
    ["grep -f list.txt src/a.ts", "allow"],
    ["grep --file=list.txt -rn src", "allow"],
    ["grep -f .env src/a.ts", "deny"],
  ],
};

/**
 * Every option value that names a file is judged as a path, however it is written: `--opt=value`,
 * `--opt value`, an abbreviation, `-ovalue` and bundled short options (`-uo FILE`).
 */
export const OPTION_PATH_RULE: ClassRule = {
  why: "option values that name files are judged as paths in every spelling",
  examples: [
    ["sort -o ../outside/w src/a.ts", "deny"],
    ["sort -o../outside/w src/a.ts", "deny"],
    ["sort -uo ../outside/w src/a.ts", "deny"],
    ["sort --output=../outside/w src/a.ts", "deny"],
    ["sort --outp=../outside/w src/a.ts", "block"],
    ["sort -T ../outside src/a.ts", "deny"],
    ["uniq src/a.ts ../outside/w", "deny"],
    ["uniq src/a.ts out.txt", "ask"],
    ["jq -n --rawfile x .env '$x'", "deny"],
    ["jq -n --slurpfile x ../outside/canary.txt '$x'", "block"],
    ["jq -L .. -n 1", "block"],
    ["jq --library-path=.. -n 1", "block"],
    ["jq -n 'import \"data\" as $d; $d'", "block"],
    ["jq -n 'include \"x\"; 1'", "block"],
    ["jq -f planted.jq data.json", "block"],
    ["jq .n data.json", "allow"],
    ["date -r ../outside/canary.txt", "block"],
    ["date --reference=.env", "deny"],
    ["diff --from-file=../outside/canary.txt src/a.ts", "block"],
    ["tree -o ../outside/w src", "deny"],
    ["touch -r ../outside/canary.txt src/a.ts", "block"],
    ["hexdump -f ../outside/canary.txt src/a.ts", "block"],
  ],
};

const MATCH_CONTEXT_LONG = "max-count= after-context= before-context= context=";

const GREP: CommandSpec = {
  kind: "read",
  numeric: true,
  options: optionTable(
    "EFGPe:f:iyvwxcm:bnHhoqsaIrRlLTZzA:B:C:d:D:UVu",
    `extended-regexp fixed-strings basic-regexp perl-regexp regexp= file= ignore-case no-ignore-case
     word-regexp line-regexp null-data no-messages invert-match version help ${MATCH_CONTEXT_LONG}
     byte-offset line-number no-line-number line-buffered with-filename no-filename label= only-matching
     quiet silent binary-files= text directories= devices= recursive dereference-recursive include=
     exclude= exclude-from= exclude-dir= files-without-match files-with-matches count initial-tab null
     color=? colour=? binary group-separator= no-group-separator`,
  ),
  readPathFlags: ["-f", "--file", "--exclude-from"],
  recursiveFlags: ["-r", "-R", "--recursive", "--dereference-recursive"],
  patternFirst: true,
  patternFlags: ["-e", "--regexp", "-f", "--file"],
};

const HASH: CommandSpec = {
  kind: "read",
  options: optionTable(
    "bctzw",
    "binary check tag text zero ignore-missing quiet status strict warn help version",
  ),
  hardCheck: (args) =>
    args.flags.some((f) => f.flag === "-c" || f.flag === "--check")
      ? "a checksum check reads the files its list names, which the policy cannot see"
      : undefined,
};

const HELP = "help version";

/** Commands that only read (or only print), with the flags that would change that. */
export const READ_ONLY: Record<string, CommandSpec> = {
  ls: {
    kind: "read",
    names: true,
    options: optionTable(
      "aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1I:w:T:",
      `all almost-all author escape block-size= ignore-backups color=? directory dired classify=?
       file-type format= full-time group-directories-first no-group human-readable si
       dereference-command-line dereference-command-line-symlink-to-dir hide= hyperlink=?
       indicator-style= inode ignore= kibibytes dereference numeric-uid-gid literal hide-control-chars
       show-control-chars quote-name quoting-style= reverse recursive size sort= time= time-style=
       tabsize= width= context zero ${HELP}`,
    ),
  },
  cat: {
    kind: "read",
    options: optionTable(
      "AbeEnstTuv",
      `show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting ${HELP}`,
    ),
  },
  tac: { kind: "read", options: optionTable("brs:", `before regex separator= ${HELP}`) },
  head: {
    kind: "read",
    numeric: true,
    options: optionTable("c:n:qvz", `bytes= lines= quiet silent verbose zero-terminated ${HELP}`),
  },
  tail: {
    kind: "read",
    numeric: true,
    options: optionTable(
      "c:n:fFqs:vz",
      `bytes= follow=? lines= max-unchanged-stats= pid= quiet retry silent sleep-interval= verbose
       zero-terminated ${HELP}`,
    ),
  },
  wc: {
    kind: "read",
    options: optionTable("cmlLw", `bytes chars lines files0-from= max-line-length words total= ${HELP}`),
    listFlags: ["--files0-from"],
  },
  nl: {
    kind: "read",
    options: optionTable(
      "b:d:f:h:i:l:n:ps:v:w:",
      `body-numbering= section-delimiter= footer-numbering= header-numbering= line-increment=
       join-blank-lines= number-format= no-renumber number-separator= starting-line-number=
       number-width= ${HELP}`,
    ),
  },
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: {
    kind: "read",
    recursive: true,
    numeric: false,
    options: optionTable(
      "e:f:g:t:T:A:B:C:m:j:M:d:E:r:isSvwxFUPclLnNHIhoqua0bz.",
      `regexp= file= glob= iglob= type= type-not= type-add= type-clear= ${MATCH_CONTEXT_LONG} threads=
       max-columns= max-depth= maxdepth= encoding= replace= ignore-case case-sensitive smart-case
       invert-match word-regexp line-regexp fixed-strings multiline multiline-dotall pcre2 count
       count-matches files-with-matches files-without-match line-number no-line-number with-filename
       no-filename no-ignore no-ignore-vcs no-ignore-dot no-ignore-parent no-ignore-global
       no-ignore-files no-ignore-exclude hidden no-hidden follow only-matching quiet unrestricted text
       binary null json vimgrep column no-heading heading trim files type-list sort= sortr= color=
       colors= context-separator= field-match-separator= path-separator= max-filesize= no-messages
       stats glob-case-insensitive one-file-system passthru pretty crlf null-data no-config pre=
       pre-glob= search-zip ignore-file= engine= dfa-size-limit= regex-size-limit= mmap no-mmap
       block-buffered line-buffered byte-offset no-unicode ${HELP}`,
    ),
    readPathFlags: ["-f", "--file", "--ignore-file"],
    execFlags: ["--pre", "-z", "--search-zip"],
    // Only these print names alone; -l and -c still answer questions about contents (an oracle).
    namesFlags: ["--files", "--type-list"],
    patternFirst: true,
    patternFlags: ["-e", "--regexp", "-f", "--file", "--files", "--type-list"],
  },
  fd: {
    kind: "read",
    names: true,
    options: optionTable(
      "HIusigFalLp01qe:t:d:E:S:c:j:o:x:X:",
      `hidden no-hidden no-ignore no-ignore-vcs unrestricted case-sensitive ignore-case glob regex
       fixed-strings absolute-path list-details follow full-path print0 max-depth= min-depth=
       exact-depth= extension= type= exclude= size= changed-within= changed-before= owner= color=
       threads= max-results= path-separator= one-file-system show-errors quiet format= exec= exec-batch=
       ignore-file= search-path= base-directory= ${HELP}`,
    ),
    readPathFlags: ["--ignore-file", "--search-path", "--base-directory"],
    execFlags: ["-x", "--exec", "-X", "--exec-batch"],
    patternFirst: true,
  },
  tree: {
    kind: "read",
    names: true,
    options: optionTable(
      "adlfxL:P:I:shDFqNQpugCnirtcUvJo:",
      `gitignore du dirsfirst noreport charset= filelimit= timefmt= sort= prune matchdirs ignore-case
       ${HELP}`,
    ),
    writePathFlags: ["-o"],
  },
  du: {
    kind: "read",
    names: true,
    options: optionTable(
      "abchHklLmPsSx0d:B:t:X:",
      `all apparent-size block-size= bytes total dereference-args human-readable inodes dereference
       count-links max-depth= null separate-dirs si summarize threshold= time=? time-style= exclude=
       exclude-from= files0-from= one-file-system ${HELP}`,
    ),
    readPathFlags: ["-X", "--exclude-from"],
    listFlags: ["--files0-from"],
  },
  df: {
    kind: "read",
    names: true,
    options: optionTable(
      "ahHiklPTvB:t:x:",
      `all block-size= human-readable si inodes local no-sync sync output=? portability print-type
       type= exclude-type= total ${HELP}`,
    ),
  },
  stat: {
    kind: "read",
    names: true,
    options: optionTable("c:fLt", `format= printf= dereference file-system terse cached= ${HELP}`),
  },
  file: {
    kind: "read",
    names: true,
    options: optionTable(
      "bcEhiklLNnprsSvzZ0F:e:m:f:P:C",
      `brief checking-printout exclude= exclude-quiet= extension files-from= separator= mime mime-type
       mime-encoding keep-going list dereference no-dereference magic-file= no-buffer no-pad
       preserve-date raw special-files uncompress uncompress-noreport print0 parameter= compile ${HELP}`,
    ),
    readPathFlags: ["-m", "--magic-file"],
    listFlags: ["-f", "--files-from"],
    writeFlags: ["-C", "--compile"],
  },
  diff: {
    kind: "read",
    options: optionTable(
      "iEZbwBI:atTlrNx:X:S:sqcC:uU:enyW:pF:d",
      `normal brief report-identical-files context=? unified=? ed rcs side-by-side width= left-column
       suppress-common-lines show-c-function show-function-line= label= expand-tabs initial-tab tabsize=
       suppress-blank-empty new-file unidirectional-new-file text recursive ignore-file-name-case
       no-ignore-file-name-case exclude= exclude-from= starting-file= from-file= to-file= ignore-case
       ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space ignore-blank-lines
       ignore-matching-lines= strip-trailing-cr minimal speed-large-files horizon-lines= color=? palette=
       no-dereference ${HELP}`,
    ),
    readPathFlags: ["-X", "--exclude-from", "--from-file", "--to-file"],
    recursiveFlags: ["-r", "--recursive"],
  },
  cmp: {
    kind: "read",
    options: optionTable("bi:ln:s", `print-bytes ignore-initial= verbose bytes= quiet silent ${HELP}`),
  },
  comm: {
    kind: "read",
    options: optionTable("123z", `check-order nocheck-order output-delimiter= total zero-terminated ${HELP}`),
  },
  cut: {
    kind: "read",
    options: optionTable(
      "b:c:d:f:nsz",
      `bytes= characters= delimiter= fields= complement only-delimited output-delimiter= zero-terminated
       ${HELP}`,
    ),
  },
  paste: { kind: "read", options: optionTable("d:sz", `delimiters= serial zero-terminated ${HELP}`) },
  join: {
    kind: "read",
    options: optionTable(
      "a:e:ij:o:t:v:1:2:z",
      `check-order nocheck-order header ignore-case zero-terminated ${HELP}`,
    ),
  },
  column: {
    kind: "read",
    options: optionTable(
      "ts:c:o:xN:R:H:nJLdel:",
      `table separator= output-separator= output-width= fillrows table-columns= table-name= json
       table-noheadings table-right= table-hide= ${HELP}`,
    ),
  },
  fold: { kind: "read", options: optionTable("bsw:", `bytes spaces width= ${HELP}`) },
  expand: { kind: "read", options: optionTable("it:", `initial tabs= ${HELP}`) },
  unexpand: { kind: "read", options: optionTable("at:", `all first-only tabs= ${HELP}`) },
  fmt: {
    kind: "read",
    options: optionTable(
      "ctsuw:p:g:",
      `crown-margin tagged-paragraph split-only uniform-spacing width= prefix= goal= ${HELP}`,
    ),
  },
  rev: { kind: "read", options: optionTable("0", HELP) },
  od: {
    kind: "read",
    options: optionTable(
      "A:j:N:t:vw::S::bcdfilosx",
      `address-radix= skip-bytes= read-bytes= format= output-duplicates width=? strings=? endian=
       traditional ${HELP}`,
    ),
  },
  hexdump: {
    kind: "read",
    options: optionTable(
      "bcCdoxe:f:n:s:vL::",
      `one-byte-octal one-byte-char canonical two-bytes-decimal
       two-bytes-octal two-bytes-hex format= format-file= length= skip= no-squeezing color=? ${HELP}`,
    ),
    readPathFlags: ["-f", "--format-file"],
  },
  strings: {
    kind: "read",
    options: optionTable(
      "adfn:t:e:ws:",
      `all data print-file-name bytes= radix= encoding= include-all-whitespace output-separator= ${HELP}`,
    ),
    // binutils reads more options and file names from `@FILE`.
    hardCheck: (args) =>
      args.positionals.some((word) => word.value.startsWith("@"))
        ? "strings @FILE reads options and file names from a file the policy cannot see"
        : undefined,
  },
  md5sum: HASH,
  sha1sum: HASH,
  sha224sum: HASH,
  sha256sum: HASH,
  sha384sum: HASH,
  sha512sum: HASH,
  b2sum: HASH,
  cksum: HASH,
  base64: { kind: "read", options: optionTable("diw:", `decode ignore-garbage wrap= ${HELP}`) },
  realpath: {
    kind: "read",
    names: true,
    options: optionTable(
      "emLPqsz",
      `canonicalize-existing canonicalize-missing logical physical quiet relative-to= relative-base= strip
       no-symlinks zero ${HELP}`,
    ),
  },
  readlink: {
    kind: "read",
    names: true,
    options: optionTable(
      "femnqsvz",
      `canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero ${HELP}`,
    ),
  },
  jq: {
    kind: "read",
    options: optionTable(
      "cnrjasSeCMRhVf:L:",
      `compact-output null-input raw-output join-output ascii-output slurp sort-keys exit-status
       color-output monochrome-output raw-input raw-output0 tab indent= stream stream-errors seq
       unbuffered arg=2 argjson=2 slurpfile=2 rawfile=2 from-file= library-path= args jsonargs ${HELP}`,
    ),
    readPathFlags: ["-f", "--from-file", "--rawfile", "--slurpfile"],
    // A module folder (-L) is read below: `import "x" as $d;` loads any x.json in it.
    recursivePathFlags: ["-L", "--library-path"],
    patternFirst: true,
    patternFlags: ["-f", "--from-file"],
    hardCheck: jqCheck,
  },
  sort: {
    kind: "read",
    options: optionTable(
      "bdfgihMnRrVcCmsuzk:t:S:T:o:",
      `ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting
       month-sort human-numeric-sort numeric-sort random-sort random-source= reverse sort= version-sort
       batch-size= check=? compress-program= debug files0-from= key= merge output= stable buffer-size=
       field-separator= temporary-directory= parallel= unique zero-terminated ${HELP}`,
    ),
    readPathFlags: ["--random-source"],
    listFlags: ["--files0-from"],
    writePathFlags: ["-o", "--output", "-T", "--temporary-directory"],
    execFlags: ["--compress-program"],
  },
  uniq: {
    kind: "read",
    options: optionTable(
      "cdDf:is:uw:z",
      `count repeated all-repeated=? skip-fields= ignore-case skip-chars= unique zero-terminated
       check-chars= group=? ${HELP}`,
    ),
    // uniq's second operand is its output file.
    outputOperand: 1,
  },
  sed: {
    kind: "read",
    options: optionTable(
      "ne:f:Ersuzl:i::",
      `quiet silent expression= file= regexp-extended separate unbuffered null-data zero-terminated
       line-length= in-place=? posix debug sandbox follow-symlinks ${HELP}`,
    ),
    writeFlags: ["-i", "--in-place"],
    patternFirst: true,
    patternFlags: ["-e", "--expression", "-f", "--file"],
    hardCheck: sedCheck,
  },
  echo: { kind: "none" },
  printf: { kind: "none" },
  true: { kind: "none" },
  ":": { kind: "none" },
  exit: { kind: "none" },
  return: { kind: "none" },
  break: { kind: "none" },
  continue: { kind: "none" },
  shift: { kind: "none" },
  jobs: { kind: "none", options: optionTable("lnprs", "") },
  wait: { kind: "none", options: optionTable("fnp:", "") },
  false: { kind: "none" },
  test: { kind: "none" },
  "[": { kind: "none" },
  pwd: { kind: "none", options: optionTable("LP", "logical physical") },
  basename: { kind: "none", options: optionTable("as:z", `multiple suffix= zero ${HELP}`) },
  dirname: { kind: "none", options: optionTable("z", `zero ${HELP}`) },
  seq: { kind: "none", options: optionTable("f:s:w", `format= separator= equal-width ${HELP}`) },
  sleep: { kind: "none", options: optionTable("", HELP) },
  tr: {
    kind: "none",
    options: optionTable("cCdst", `complement delete squeeze-repeats truncate-set1 ${HELP}`),
  },
  whoami: { kind: "none", options: optionTable("", HELP) },
  id: { kind: "none", options: optionTable("agGnruzZ", `group groups name real user zero context ${HELP}`) },
  uname: {
    kind: "none",
    options: optionTable(
      "asnrvmpio",
      `all kernel-name nodename kernel-release kernel-version machine processor hardware-platform operating-system ${HELP}`,
    ),
  },
  nproc: { kind: "none", options: optionTable("", `all ignore= ${HELP}`) },
  printenv: { kind: "none", options: optionTable("0", `null ${HELP}`) },
  which: { kind: "none", options: optionTable("as", "") },
  type: { kind: "none", options: optionTable("afpPt", "") },
  ps: {
    kind: "none",
    options: optionTable("AaefFlHjLTwxMNo:p:u:U:g:G:t:C:", `sort= forest no-headers ${HELP}`),
    // BSD-style `ps e` shows every process's environment, the agent's keys included.
    hardCheck: (args) =>
      args.positionals.some((word) => !/^[auxwfjlvrTSH]+$/.test(word.value))
        ? "ps with BSD options may print processes' environments"
        : args.flags.some((f) => f.flag === "-o" && /env|environ/i.test(f.value?.value ?? ""))
          ? "ps -o may print processes' environments"
          : undefined,
  },
  date: {
    kind: "none",
    options: optionTable(
      "d:f:I::r:Rs:u",
      `date= file= iso-8601=? resolution rfc-email rfc-3339= reference= set= universal utc debug ${HELP}`,
    ),
    readPathFlags: ["-f", "--file", "-r", "--reference"],
    writeFlags: ["-s", "--set"],
    // `date MMDDhhmm` sets the clock; only `+FORMAT` operands print.
    check: (args) =>
      args.positionals.some((word) => !word.value.startsWith("+"))
        ? "date with an operand sets the clock"
        : undefined,
  },
};

/** Commands that create or change files: allowed in "workspace-write" mode when every path is inside. */
export const WORKSPACE_WRITERS: Record<string, CommandSpec> = {
  mkdir: { kind: "write", options: optionTable("m:pvZ", `mode= parents verbose context=? ${HELP}`) },
  touch: {
    kind: "write",
    options: optionTable("acd:fhmr:t:", `time= no-create date= no-dereference reference= ${HELP}`),
    readPathFlags: ["-r", "--reference"],
  },
  cp: {
    kind: "write",
    options: optionTable(
      "abdfHilLnPpRrsS:t:TuvxZ",
      `archive attributes-only backup=? copy-contents dereference force interactive link no-dereference
       no-clobber no-preserve= no-target-directory parents preserve=? recursive reflink=?
       remove-destination sparse= strip-trailing-slashes suffix= symbolic-link target-directory= update=?
       verbose one-file-system context=? debug keep-directory-symlink ${HELP}`,
    ),
    writePathFlags: ["-t", "--target-directory"],
    recursiveFlags: ["-r", "-R", "-a", "--recursive", "--archive"],
  },
  mv: {
    kind: "write",
    options: optionTable(
      "bfinS:t:TuvZ",
      `backup=? force interactive no-clobber strip-trailing-slashes suffix= target-directory=
       no-target-directory update=? verbose context debug exchange no-copy ${HELP}`,
    ),
    writePathFlags: ["-t", "--target-directory"],
  },
  tee: { kind: "write", options: optionTable("aip", `append ignore-interrupts output-error=? ${HELP}`) },
};

const OWNERSHIP = optionTable(
  "cfvRHLPrwxXst",
  `changes silent quiet verbose no-preserve-root preserve-root reference= recursive dereference
   no-dereference from= ${HELP}`,
);

/** Commands that delete or change permissions: every path is checked, and they always ask. */
export const DESTRUCTIVE: Record<string, CommandSpec> = {
  rm: {
    kind: "write",
    always: "ask",
    options: optionTable(
      "fiIrRdv",
      `force interactive=? one-file-system no-preserve-root preserve-root=? recursive dir verbose ${HELP}`,
    ),
  },
  rmdir: {
    kind: "write",
    always: "ask",
    options: optionTable("pv", `ignore-fail-on-non-empty parents verbose ${HELP}`),
  },
  shred: {
    kind: "write",
    always: "ask",
    options: optionTable(
      "fn:s:uvxz",
      `force iterations= random-source= size= remove=? verbose exact zero ${HELP}`,
    ),
  },
  truncate: {
    kind: "write",
    always: "ask",
    options: optionTable("cor:s:", `no-create io-blocks reference= size= ${HELP}`),
    readPathFlags: ["-r", "--reference"],
  },
  chmod: {
    kind: "write",
    always: "ask",
    patternFirst: true,
    options: OWNERSHIP,
    readPathFlags: ["--reference"],
  },
  chown: {
    kind: "write",
    always: "ask",
    patternFirst: true,
    options: OWNERSHIP,
    readPathFlags: ["--reference"],
  },
  chgrp: {
    kind: "write",
    always: "ask",
    patternFirst: true,
    options: OWNERSHIP,
    readPathFlags: ["--reference"],
  },
  // install copies like cp and sets modes and owners like chmod and chown: it always asks.
  install: {
    kind: "write",
    always: "ask",
    options: optionTable(
      "bcCdDg:m:o:pst:TvS:Z",
      `backup=? compare directory group= mode= owner= preserve-timestamps strip strip-program= suffix=
       target-directory= no-target-directory verbose preserve-context context=? debug ${HELP}`,
    ),
    writePathFlags: ["-t", "--target-directory"],
    execFlags: ["-s", "--strip", "--strip-program"],
  },
  ln: {
    kind: "write",
    always: "ask",
    options: optionTable(
      "bdFfiLnPrsS:t:Tv",
      `backup=? directory force interactive logical no-dereference physical relative symbolic suffix=
       target-directory= no-target-directory verbose ${HELP}`,
    ),
    writePathFlags: ["-t", "--target-directory"],
  },
};

/** Flag spellings that mean the same thing, so rules match however the flags are written. */
export const FLAG_ALIASES: Record<string, Record<string, string>> = {
  rm: {
    "--recursive": "-r",
    "-R": "-r",
    "--force": "-f",
    "--interactive": "-i",
    "--verbose": "-v",
    "--dir": "-d",
  },
  cp: { "--recursive": "-r", "-R": "-r", "--force": "-f" },
  mv: { "--force": "-f" },
  git: { "--force": "-f" },
  ls: { "--all": "-a", "--almost-all": "-A" },
};

/** Commands that never get written to disk: systems-level destruction, denied outright. */
export const DENIED: Record<string, string> = {
  mkfs: "formats a file system",
  fdisk: "edits partition tables",
  sfdisk: "edits partition tables",
  parted: "edits partition tables",
  wipefs: "erases file-system signatures",
  shutdown: "shuts the machine down",
  reboot: "reboots the machine",
  halt: "halts the machine",
  poweroff: "powers the machine off",
  init: "changes the run level",
  telinit: "changes the run level",
  systemctl: "controls system services",
  passwd: "changes passwords",
  useradd: "changes user accounts",
  userdel: "changes user accounts",
  usermod: "changes user accounts",
  visudo: "changes privileges",
  crontab: "installs scheduled jobs",
};

/**
 * jq reads files its program names (`import "x" as $d;`, `include "x";`) from its module path, which is
 * not an operand; and a program file (-f) may do the same unseen.
 */
function jqCheck(args: ParsedArgs): string | undefined {
  if (args.flags.some((f) => f.flag === "-f" || f.flag === "--from-file"))
    return "jq -f runs a program file, which may load modules and data files the policy cannot see";
  const program = args.positionals[0];
  if (program && program.kind !== "static") return "the jq program is not static";
  if (
    program &&
    /\b(?:import|include|modulemeta|get_search_list|input_filename)\b|\$__prog/.test(program.value)
  )
    return "the jq program loads modules or data files from its search path";
  return undefined;
}

function sedCheck(args: ParsedArgs): string | undefined {
  if (args.flags.some((f) => f.flag === "-f" || f.flag === "--file"))
    return "sed -f runs a script from a file, which may write files or run commands";
  const scripts = args.flags
    .filter((f) => f.flag === "-e" || f.flag === "--expression")
    .map((f) => (f.value?.kind === "static" ? f.value.value : undefined));
  if (!args.flags.some((f) => ["-e", "--expression"].includes(f.flag))) {
    const first = args.positionals[0];
    if (first) scripts.push(first.kind === "static" ? first.value : undefined);
  }
  for (const script of scripts) {
    if (script === undefined) return "the sed script is not static";
    if (!isPrintingSedScript(script))
      return `sed script "${script.slice(0, 40)}" may write files or run commands (only p, d, q, = and s/// without w or e are understood)`;
  }
  return undefined;
}

/** Only scripts that print or substitute (no `w`, `e`, `r` commands or flags) are read-only. */
function isPrintingSedScript(script: string): boolean {
  // Several commands split by `;` or newlines, each judged alone; a `;` inside s/// is not split here,
  // so such a script is refused as a whole (it asks).
  const commands = script
    .split(/[;\n]/)
    .map((part) => part.trim())
    .filter((part) => part !== "");
  return commands.length > 0 && commands.every(isPrintingSedCommand);
}

function isPrintingSedCommand(trimmed: string): boolean {
  const address = String.raw`(?:\d+|\$|/(?:[^/\\]|\\.)*/)`;
  if (new RegExp(`^(?:${address}(?:,${address})?)?!?[pdq=]$`).test(trimmed)) return true;
  const sub = new RegExp(`^(?:${address}(?:,${address})?)?s(.*)$`).exec(trimmed);
  const body = sub?.[1];
  if (body === undefined || body.length < 3) return false;
  const delimiter = body[0] as string;
  if (/[\w\s\\\n;{}#]/.test(delimiter)) return false;
  const parts: string[] = [];
  let current = "";
  for (let i = 1; i < body.length; i++) {
    const char = body[i] as string;
    if (char === "\\") {
      current += char + (body[i + 1] ?? "");
      i++;
    } else if (char === delimiter) {
      parts.push(current);
      current = "";
    } else current += char;
  }
  parts.push(current);
  return parts.length === 3 && /^[gpiIm0-9]*$/.test(parts[2] as string);
}

export function specArgs(spec: CommandSpec, words: Parameters<typeof parseArgs>[0]): ParsedArgs {
  const table = spec.options;
  if (!table) return parseArgs(words, { singleDashLong: spec.singleDashLong });
  return parseArgs(words, {
    values: new Set(table.values),
    optional: new Set(table.optional),
    pairs: new Set(table.pairs),
    singleDashLong: spec.singleDashLong,
  });
}

/** The options a strict spec does not know: asked about, since an unknown spelling may abbreviate a dangerous one. */
export function unknownOptions(spec: CommandSpec, args: ParsedArgs): string[] {
  const table = spec.options;
  if (!table) return [];
  return args.flags
    .map((f) => f.flag)
    .filter((flag) => !table.known.has(flag) && !(spec.numeric && /^-[0-9]$/.test(flag)));
}
