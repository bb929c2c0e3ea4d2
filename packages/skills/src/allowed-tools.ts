/**
 * `allowed-tools` as skills write it: a space-delimited string (the Agent Skills spec), a comma list
 * (Claude Code's older form) or a YAML list. Parentheses group: `Bash(git add:*)` is one entry.
 */
export function parseAllowedTools(value: unknown): readonly string[] | { readonly problem: string } {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) {
    const entries: string[] = [];
    for (const item of value) {
      if (typeof item !== "string") return { problem: "allowed-tools entries must be strings" };
      entries.push(...splitEntries(item));
    }
    return entries;
  }
  if (typeof value === "string") return splitEntries(value);
  return { problem: "allowed-tools must be a string or a list of strings" };
}

function splitEntries(text: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "(") depth++;
    if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (current !== "") entries.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  if (current !== "") entries.push(current);
  return entries;
}
