import type { ShellWord } from "./words.js";

export interface ParsedFlag {
  readonly flag: string;
  readonly value?: ShellWord;
  /** The second word of an option that takes two (`jq --rawfile NAME FILE`: FILE). */
  readonly second?: ShellWord;
}

export interface ParsedArgs {
  readonly flags: readonly ParsedFlag[];
  readonly positionals: readonly ShellWord[];
  /** With `stopAtPositional`, the words from the first positional on (a wrapped command). */
  readonly rest: readonly ShellWord[];
}

export interface ArgsOptions {
  /** Flags that take a value, short ("-n") or long ("--lines"); the value may be attached. */
  readonly values?: ReadonlySet<string>;
  /** Stop at the first positional word: what follows is another command (wrappers) or an expression (find). */
  readonly stopAtPositional?: boolean;
  /** Long options a single dash may introduce (find's -name, -exec…): they are kept whole. */
  readonly singleDashLong?: boolean;
  /** Options whose value is optional: taken only when attached (`--color=auto`, `-i.bak`). */
  readonly optional?: ReadonlySet<string>;
  /** Long options that take the next two words. */
  readonly pairs?: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Split words into flags and positionals the way getopt-style programs do: short clusters (`-rf` is
 * `-r -f`), attached values (`-n5`, `--lines=5`), `--` ending the options. Dynamic words are positional:
 * a flag the policy cannot see must never hide a path.
 */
export function parseArgs(words: readonly ShellWord[], options: ArgsOptions = {}): ParsedArgs {
  const values = options.values ?? NONE;
  const optional = options.optional ?? NONE;
  const pairs = options.pairs ?? NONE;
  const flags: ParsedFlag[] = [];
  const positionals: ShellWord[] = [];
  let onlyPositionals = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as ShellWord;
    const text = word.value;
    const isFlag = !onlyPositionals && word.kind !== "dynamic" && text.length > 1 && text.startsWith("-");
    if (!isFlag) {
      if (options.stopAtPositional) return { flags, positionals, rest: words.slice(i) };
      positionals.push(word);
      continue;
    }
    if (text === "--") {
      onlyPositionals = true;
      if (options.stopAtPositional) return { flags, positionals, rest: words.slice(i + 1) };
      continue;
    }
    if (text.startsWith("--") || options.singleDashLong) {
      const eq = text.indexOf("=");
      if (eq !== -1) {
        flags.push({ flag: text.slice(0, eq), value: { ...word, value: text.slice(eq + 1) } });
      } else if (pairs.has(text)) {
        const value = words[i + 1];
        const second = words[i + 2];
        i = Math.min(i + 2, words.length);
        flags.push({ flag: text, ...(value ? { value } : {}), ...(second ? { second } : {}) });
      } else if (values.has(text) && i + 1 < words.length) {
        flags.push({ flag: text, value: words[++i] as ShellWord });
      } else {
        flags.push({ flag: text });
      }
      continue;
    }
    for (let j = 1; j < text.length; j++) {
      const flag = `-${text[j]}`;
      if (optional.has(flag)) {
        const attached = text.slice(j + 1);
        flags.push(attached === "" ? { flag } : { flag, value: { ...word, value: attached } });
        break;
      }
      if (values.has(flag)) {
        const attached = text.slice(j + 1);
        if (attached !== "") flags.push({ flag, value: { ...word, value: attached } });
        else if (i + 1 < words.length) flags.push({ flag, value: words[++i] as ShellWord });
        else flags.push({ flag });
        break;
      }
      flags.push({ flag });
    }
  }
  return { flags, positionals, rest: [] };
}

export function hasFlag(args: ParsedArgs, ...names: string[]): boolean {
  return args.flags.some((flag) => names.includes(flag.flag));
}

export function flagValues(args: ParsedArgs, ...names: string[]): ShellWord[] {
  return args.flags
    .filter((flag) => names.includes(flag.flag) && flag.value)
    .map((flag) => flag.value as ShellWord);
}
