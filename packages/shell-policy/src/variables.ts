import type { ShellWord } from "./words.js";

// Names a command may set without changing which programs run or which files they touch. Everything
// else in capitals is assumed to be read by some program as a file to write (GIT_TRACE, *_LOG_FILE,
// HISTFILE), a program to run (PAGER, GIT_SSH_COMMAND, LD_PRELOAD) or a script to source (BASH_ENV).
const HARMLESS = new Set([
  "NO_COLOR",
  "FORCE_COLOR",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "COLUMNS",
  "LINES",
  "CI",
  "NODE_ENV",
  "RUST_BACKTRACE",
  "RUST_LOG",
  "CARGO_TERM_COLOR",
  "PYTHONUNBUFFERED",
  "PYTHONDONTWRITEBYTECODE",
  "PYTHONHASHSEED",
  "PYTHONIOENCODING",
  "GIT_TERMINAL_PROMPT",
  "GIT_OPTIONAL_LOCKS",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "GIT_COMMITTER_DATE",
  "TIMEFORMAT",
  "POSIXLY_CORRECT",
  "DEBIAN_FRONTEND",
  "TOKENIZERS_PARALLELISM",
  "OPTIND",
  "OPTARG",
  "REPLY",
]);

// Names harmless only with a value of a known shape (a locale, a time zone, a terminal, the cat pager).
const LOCALE = /^[A-Za-z0-9_.@-]*$/;
const SHAPED: Record<string, RegExp> = {
  LANG: LOCALE,
  LANGUAGE: /^[A-Za-z0-9_.@:-]*$/,
  TZ: /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/,
  TERM: /^[A-Za-z0-9+_-][A-Za-z0-9.+_-]*$/,
  // Splitting only changes words the policy already treats as unknown (expansions).
  IFS: /^[ \t\n]*$/,
  PAGER: /^(?:cat)?$/,
  GIT_PAGER: /^(?:cat)?$/,
  MANPAGER: /^(?:cat)?$/,
  SYSTEMD_PAGER: /^(?:cat)?$/,
};

// Lower-case names programs read as configuration (npm_config_script_shell runs a shell of its choosing).
const CONFIG_PREFIX = /^(?:npm|pnpm|yarn|bun|pip|uv|cargo|git|node|python|poetry|bundle|gem|composer)_/i;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LITERAL_SUBSCRIPT = /^([A-Za-z_][A-Za-z0-9_]*)\[(-?[0-9]+|[@*])\]$/;

/**
 * Why assigning `name` (as a prefix, with declare/export/read/printf -v, a loop, `${name:=…}`) makes
 * what runs afterwards untrustworthy, or undefined when it does not. `value` is the assigned word when
 * the policy knows it.
 */
export function variableRisk(name: string, value?: ShellWord): string | undefined {
  let base = name;
  if (!IDENTIFIER.test(name)) {
    const element = LITERAL_SUBSCRIPT.exec(name);
    if (!element)
      return `assigns to "${name}": bash evaluates an array subscript (or a computed name) as code`;
    base = element[1] as string;
  }
  if (/[a-z]/.test(base)) {
    return CONFIG_PREFIX.test(base) ? `sets ${base}, which configures what a program runs` : undefined;
  }
  if (HARMLESS.has(base)) return undefined;
  const shape = SHAPED[base] ?? (base.startsWith("LC_") ? LOCALE : undefined);
  if (shape) {
    const text = staticValue(value);
    if (text !== undefined && shape.test(text) && !text.includes("..")) return undefined;
    return `sets ${base} to a value the policy cannot vouch for`;
  }
  return `sets ${base}, an environment variable a program may read as a file to write, a program to run or a script to source`;
}

function staticValue(value: ShellWord | undefined): string | undefined {
  return value && (value.kind === "static" || value.kind === "obfuscated") ? value.value : undefined;
}

/** A name operand (`read NAME`, `printf -v NAME`, `unset NAME`): a risk, or undefined for a plain safe name. */
export function nameOperandRisk(word: ShellWord): string | undefined {
  if (word.kind !== "static" && word.kind !== "obfuscated")
    return `the variable name "${word.text}" is not static: bash evaluates subscripts in names as code`;
  return variableRisk(word.value);
}
