/**
 * Claude Code's matcher rule: empty or `*` matches everything; a name made only of word characters and `|`
 * is an exact name or a list of exact names; anything else is a regular expression searched in the name
 * (unanchored, as Claude Code tests it: `mcp__memory__.*` matches every tool of that server).
 * A matcher that is not a valid expression matches nothing (and is reported where it is read).
 */
export function matcherMatches(matcher: string, subject: string): boolean {
  if (matcher === "" || matcher === "*") return true;
  if (/^[\w|]+$/.test(matcher)) return matcher.split("|").includes(subject);
  const pattern = compileMatcher(matcher);
  return pattern?.test(subject) ?? false;
}

/** The matcher as an expression, or undefined when it does not compile. */
export function compileMatcher(matcher: string): RegExp | undefined {
  try {
    return new RegExp(matcher);
  } catch {
    return undefined;
  }
}
