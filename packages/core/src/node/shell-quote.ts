/** Characters a word may consist of and still mean itself to sh without quotes (an argument, not a command). */
const PLAIN_WORD = /^[A-Za-z0-9_./:=@%+,-]+$/;

export type QuoteStyle = "always" | "when-needed";

/**
 * One word for `sh`/`bash` that the shell reads back as exactly `word`: single quotes, inside which nothing
 * is special (no `$`, backticks, globs or backslashes), with each `'` written as `'\''`. With `"when-needed"`
 * a word made only of plain characters is left bare, for command lines a person reads.
 */
export function shellQuote(word: string, style: QuoteStyle = "always"): string {
  if (style === "when-needed" && PLAIN_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * An argv as one command line that runs exactly that argv (see `shellQuote`). The command word is quoted
 * when it holds `=`: bare, `A=b` would be read as an assignment rather than a program name.
 */
export function shellCommand(argv: readonly string[], style: QuoteStyle = "always"): string {
  return argv
    .map((word, index) => shellQuote(word, index === 0 && word.includes("=") ? "always" : style))
    .join(" ");
}
