/**
 * Option tables written the way getopt reads them, so every command's spec lists the exact options the
 * policy knows. GNU tools accept any unambiguous prefix of a long option (`--out=` is `--output=`) and
 * some options take an optional value only when attached; anything outside the table is asked about,
 * never guessed at.
 */
export interface OptionTable {
  /** Options whose value is required: attached (`-n5`, `--lines=5`) or the next word. */
  readonly values: readonly string[];
  /** Options whose value is optional: only attached (`--color=auto`, `-i.bak`); never the next word. */
  readonly optional: readonly string[];
  /** Options that take the next two words (`jq --rawfile NAME FILE`). */
  readonly pairs: readonly string[];
  /** Every option spelling the table knows, with or without a value. */
  readonly known: ReadonlySet<string>;
}

/**
 * Build a table from getopt-style short letters (`n:` takes a value, `i::` an optional attached one)
 * and space-separated long names (`lines=` takes a value, `color=?` an optional one, `rawfile=2` two words).
 */
export function optionTable(short: string, long: string): OptionTable {
  const values: string[] = [];
  const optional: string[] = [];
  const pairs: string[] = [];
  const known = new Set<string>();
  for (let i = 0; i < short.length; i++) {
    const flag = `-${short[i]}`;
    known.add(flag);
    if (short[i + 1] === ":" && short[i + 2] === ":") {
      optional.push(flag);
      i += 2;
    } else if (short[i + 1] === ":") {
      values.push(flag);
      i += 1;
    }
  }
  for (const entry of long.split(/\s+/)) {
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    const flag = `--${eq === -1 ? entry : entry.slice(0, eq)}`;
    known.add(flag);
    const arity = eq === -1 ? "" : entry.slice(eq + 1);
    if (arity === "") {
      if (eq !== -1) values.push(flag);
    } else if (arity === "?") optional.push(flag);
    else if (arity === "2") pairs.push(flag);
  }
  return { values, optional, pairs, known };
}
