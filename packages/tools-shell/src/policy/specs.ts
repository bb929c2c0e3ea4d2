import { type ParsedArgs, parseArgs } from "./argv.js";

/**
 * How a command the policy knows behaves: which of its flags take values, which words are paths, and
 * which flags turn a read-only command into one that writes or runs other programs.
 */
export interface CommandSpec {
  /** "read": positionals are paths it reads; "none": positionals are not paths; "write": paths it writes. */
  readonly kind: "read" | "none" | "write";
  readonly values?: readonly string[];
  readonly readPathFlags?: readonly string[];
  readonly writePathFlags?: readonly string[];
  /** Flags that make it modify files. */
  readonly writeFlags?: readonly string[];
  /** Flags that make it run other programs. */
  readonly execFlags?: readonly string[];
  /** The first positional is a pattern or script, not a path, unless one of `patternFlags` supplies it. */
  readonly patternFirst?: boolean;
  readonly patternFlags?: readonly string[];
  /** "ask": asks even with every path inside (destructive or permission-changing), unless a rule allows it. */
  readonly always?: "ask";
  /** A custom check on the parsed arguments: a reason to ask, or undefined. */
  readonly check?: (args: ParsedArgs) => string | undefined;
  readonly singleDashLong?: boolean;
}

// Flags grep and rg share for how many matches and how much context they print.
const MATCH_CONTEXT = [
  "-m",
  "--max-count",
  "-A",
  "-B",
  "-C",
  "--after-context",
  "--before-context",
  "--context",
];

const GREP: CommandSpec = {
  kind: "read",
  values: [
    "-e",
    "--regexp",
    ...MATCH_CONTEXT,
    "--include",
    "--exclude",
    "--exclude-dir",
    "--color",
    "--colour",
    "-d",
    "--directories",
    "-D",
    "--devices",
    "--label",
    "--binary-files",
    "--group-separator",
  ],
  readPathFlags: ["-f", "--file", "--exclude-from"],
  patternFirst: true,
  patternFlags: ["-e", "--regexp", "-f", "--file"],
};

const HASH: CommandSpec = { kind: "read", values: [] };

/** Commands that only read (or only print), with the flags that would change that. */
export const READ_ONLY: Record<string, CommandSpec> = {
  ls: {
    kind: "read",
    values: [
      "-I",
      "--ignore",
      "--hide",
      "-w",
      "--width",
      "--color",
      "--format",
      "--sort",
      "--time-style",
      "-T",
      "--tabsize",
      "--block-size",
      "--quoting-style",
      "--indicator-style",
      "--time",
    ],
  },
  cat: { kind: "read" },
  tac: { kind: "read" },
  head: { kind: "read", values: ["-n", "-c", "--lines", "--bytes"] },
  tail: {
    kind: "read",
    values: ["-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid", "--max-unchanged-stats"],
  },
  wc: { kind: "read", readPathFlags: ["--files0-from"] },
  nl: { kind: "read", values: ["-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"] },
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: {
    kind: "read",
    values: [
      "-e",
      "--regexp",
      "-g",
      "--glob",
      "--iglob",
      "-t",
      "--type",
      "-T",
      "--type-not",
      "--type-add",
      "--type-clear",
      ...MATCH_CONTEXT,
      "-j",
      "--threads",
      "-M",
      "--max-columns",
      "--max-depth",
      "-d",
      "--color",
      "--colors",
      "-r",
      "--replace",
      "--sort",
      "--sortr",
      "-E",
      "--encoding",
      "--path-separator",
      "--max-filesize",
      "--context-separator",
      "--field-match-separator",
      "--pre-glob",
      "--engine",
      "--dfa-size-limit",
      "--regex-size-limit",
    ],
    readPathFlags: ["-f", "--file", "--ignore-file"],
    execFlags: ["--pre", "-z", "--search-zip"],
    patternFirst: true,
    patternFlags: ["-e", "--regexp", "-f", "--file", "--files", "--type-list"],
  },
  find: { kind: "read", singleDashLong: true },
  fd: {
    kind: "read",
    values: [
      "-e",
      "--extension",
      "-t",
      "--type",
      "-d",
      "--max-depth",
      "--min-depth",
      "-E",
      "--exclude",
      "-S",
      "--size",
      "--changed-within",
      "--changed-before",
      "-c",
      "--color",
      "-j",
      "--threads",
      "--max-results",
      "--base-directory",
      "--path-separator",
      "-o",
      "--owner",
    ],
    execFlags: ["-x", "--exec", "-X", "--exec-batch"],
    patternFirst: true,
  },
  tree: {
    kind: "read",
    values: ["-L", "-P", "-I", "--charset", "--filelimit", "--timefmt", "--sort"],
    writePathFlags: ["-o"],
  },
  du: {
    kind: "read",
    values: ["-d", "--max-depth", "-B", "--block-size", "-t", "--threshold", "--exclude", "--time-style"],
    readPathFlags: ["-X", "--exclude-from", "--files0-from"],
  },
  df: { kind: "read", values: ["-B", "--block-size", "-t", "--type", "-x", "--exclude-type", "--output"] },
  stat: { kind: "read", values: ["-c", "--format", "--printf"] },
  file: {
    kind: "read",
    values: ["-F", "--separator", "-e", "--exclude"],
    readPathFlags: ["-m", "--magic-file", "-f", "--files-from"],
    writeFlags: ["-C", "--compile"],
  },
  diff: {
    kind: "read",
    values: [
      "-U",
      "--unified",
      "-C",
      "--context",
      "-W",
      "--width",
      "-I",
      "--ignore-matching-lines",
      "-x",
      "--exclude",
      "-F",
      "--show-function-line",
      "--label",
      "--line-format",
      "--horizon-lines",
      "--color",
      "--palette",
    ],
    readPathFlags: ["-X", "--exclude-from", "--from-file", "--to-file"],
  },
  cmp: { kind: "read", values: ["-i", "--ignore-initial", "-n", "--bytes"] },
  comm: { kind: "read", values: ["--output-delimiter"] },
  cut: {
    kind: "read",
    values: [
      "-b",
      "-c",
      "-d",
      "-f",
      "--bytes",
      "--characters",
      "--delimiter",
      "--fields",
      "--output-delimiter",
    ],
  },
  paste: { kind: "read", values: ["-d", "--delimiters"] },
  join: { kind: "read", values: ["-a", "-e", "-j", "-o", "-t", "-v", "-1", "-2"] },
  column: { kind: "read", values: ["-s", "-c", "-o", "-t", "--table-columns", "-N", "-R", "-H"] },
  fold: { kind: "read", values: ["-w", "--width"] },
  expand: { kind: "read", values: ["-t", "--tabs"] },
  unexpand: { kind: "read", values: ["-t", "--tabs"] },
  fmt: { kind: "read", values: ["-w", "--width", "-p", "--prefix", "-g", "--goal"] },
  rev: { kind: "read" },
  od: {
    kind: "read",
    values: [
      "-A",
      "-j",
      "-N",
      "-t",
      "-w",
      "--address-radix",
      "--skip-bytes",
      "--read-bytes",
      "--format",
      "--width",
    ],
  },
  hexdump: { kind: "read", values: ["-n", "-s", "-e"], readPathFlags: ["-f"] },
  strings: { kind: "read", values: ["-n", "-t", "-e", "--bytes", "--radix", "--encoding"] },
  md5sum: HASH,
  sha1sum: HASH,
  sha224sum: HASH,
  sha256sum: HASH,
  sha384sum: HASH,
  sha512sum: HASH,
  b2sum: HASH,
  cksum: HASH,
  base64: { kind: "read", values: ["-w", "--wrap"] },
  realpath: { kind: "read", values: ["--relative-to", "--relative-base"] },
  readlink: { kind: "read" },
  jq: {
    kind: "read",
    values: ["--arg", "--argjson", "--indent", "--tab"],
    readPathFlags: ["-f", "--from-file", "--slurpfile", "--rawfile"],
    patternFirst: true,
    patternFlags: ["-f", "--from-file", "-n", "--null-input"],
  },
  sort: {
    kind: "read",
    values: [
      "-k",
      "--key",
      "-t",
      "--field-separator",
      "-S",
      "--buffer-size",
      "--parallel",
      "--batch-size",
      "--sort",
      "--random-source",
    ],
    readPathFlags: ["--files0-from"],
    writePathFlags: ["-o", "--output", "-T", "--temporary-directory"],
    execFlags: ["--compress-program"],
  },
  uniq: {
    kind: "read",
    values: ["-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars", "--group", "--all-repeated"],
    // uniq's second operand is its output file.
    check: (args) => (args.positionals.length > 1 ? "uniq writes its second operand" : undefined),
  },
  sed: {
    kind: "read",
    values: ["-e", "--expression", "-l", "--line-length"],
    readPathFlags: ["-f", "--file"],
    writeFlags: ["-i", "--in-place"],
    patternFirst: true,
    patternFlags: ["-e", "--expression", "-f", "--file"],
    check: sedCheck,
  },
  echo: { kind: "none" },
  printf: {
    kind: "none",
    check: (args) =>
      args.flags.some((f) => f.flag === "-v") ? "printf -v assigns a shell variable" : undefined,
    values: ["-v"],
  },
  true: { kind: "none" },
  false: { kind: "none" },
  test: { kind: "none" },
  "[": { kind: "none" },
  pwd: { kind: "none" },
  basename: { kind: "none", values: ["-s", "--suffix"] },
  dirname: { kind: "none" },
  seq: { kind: "none", values: ["-f", "-s", "--format", "--separator"] },
  sleep: { kind: "none" },
  tr: { kind: "none" },
  whoami: { kind: "none" },
  id: { kind: "none" },
  uname: { kind: "none" },
  nproc: { kind: "none" },
  printenv: { kind: "none" },
  which: { kind: "none" },
  type: { kind: "none" },
  ps: { kind: "none", values: ["-o", "-p", "-u", "-U", "-g", "-G", "-t", "--sort", "-C"] },
  date: {
    kind: "none",
    values: ["-d", "--date", "-I", "--iso-8601", "-R", "--rfc-email", "--rfc-3339"],
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
  mkdir: { kind: "write", values: ["-m", "--mode", "--context"] },
  touch: { kind: "write", values: ["-d", "--date", "-t"], readPathFlags: ["-r", "--reference"] },
  cp: {
    kind: "write",
    values: ["-S", "--suffix", "--backup", "--sparse", "--reflink", "--preserve", "--no-preserve"],
    writePathFlags: ["-t", "--target-directory"],
  },
  mv: { kind: "write", values: ["-S", "--suffix", "--backup"], writePathFlags: ["-t", "--target-directory"] },
  tee: { kind: "write", values: ["--output-error"] },
};

/** Commands that delete or change permissions: every path is checked, and they always ask. */
export const DESTRUCTIVE: Record<string, CommandSpec> = {
  rm: { kind: "write", always: "ask" },
  rmdir: { kind: "write", always: "ask" },
  shred: { kind: "write", always: "ask", values: ["-n", "-s", "--iterations", "--size", "--random-source"] },
  truncate: { kind: "write", always: "ask", values: ["-s", "--size"], readPathFlags: ["-r", "--reference"] },
  chmod: { kind: "write", always: "ask", patternFirst: true, readPathFlags: ["--reference"] },
  chown: { kind: "write", always: "ask", patternFirst: true, readPathFlags: ["--reference"] },
  chgrp: { kind: "write", always: "ask", patternFirst: true, readPathFlags: ["--reference"] },
  ln: {
    kind: "write",
    always: "ask",
    values: ["-S", "--suffix"],
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

function sedCheck(args: ParsedArgs): string | undefined {
  const scripts = args.flags
    .filter((f) => f.flag === "-e" || f.flag === "--expression")
    .map((f) => f.value?.value ?? "");
  if (!args.flags.some((f) => ["-e", "--expression", "-f", "--file"].includes(f.flag))) {
    const first = args.positionals[0];
    if (first) scripts.push(first.value);
  }
  for (const script of scripts)
    if (!isPrintingSedScript(script))
      return `sed script "${script.slice(0, 40)}" may write files or run commands`;
  return undefined;
}

/** Only scripts that print or substitute (no `w`, `e`, `r` commands or flags) are read-only. */
function isPrintingSedScript(script: string): boolean {
  const trimmed = script.trim();
  const address = String.raw`(?:\d+|\$|/(?:[^/\\]|\\.)*/)`;
  if (new RegExp(`^(?:${address}(?:,${address})?)?!?[pdq=]$`).test(trimmed)) return true;
  if (!trimmed.startsWith("s") || trimmed.length < 4) return false;
  const delimiter = trimmed[1] as string;
  if (/[\w\s\\\n;]/.test(delimiter)) return false;
  const parts: string[] = [];
  let current = "";
  for (let i = 2; i < trimmed.length; i++) {
    const char = trimmed[i] as string;
    if (char === "\\") {
      current += char + (trimmed[i + 1] ?? "");
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
  const values = new Set([
    ...(spec.values ?? []),
    ...(spec.readPathFlags ?? []),
    ...(spec.writePathFlags ?? []),
  ]);
  return parseArgs(words, { values, singleDashLong: spec.singleDashLong });
}
