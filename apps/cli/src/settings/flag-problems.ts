// A bad value typed on the command line is reported as the person typed it (`--max-turns abc: not a
// number`), in the flag's words: the settings schema's key names and zod's phrasing are the config
// file's vocabulary, which someone who typed a flag never saw.
import type { z } from "zod";

/** A settings problem whose value came from a flag, in that flag's words; undefined for any other. */
export function flagProblem(
  issue: z.core.$ZodIssue,
  flags: Readonly<Record<string, unknown>>,
): string | undefined {
  const key = issue.path[0];
  if (typeof key !== "string" || !Object.hasOwn(flags, key)) return undefined;
  const value = flags[key];
  const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  const shown = typeof value === "string" ? ` ${value.length > 60 ? `${value.slice(0, 60)}…` : value}` : "";
  return `${flag}${shown}: ${problemWords(issue)}`;
}

function problemWords(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.expected === "int") return "not a whole number";
      if (issue.expected === "number") return "not a number";
      return `not a ${issue.expected}`;
    case "too_small":
      return issue.inclusive ? `must be at least ${issue.minimum}` : `must be more than ${issue.minimum}`;
    case "too_big":
      return issue.inclusive ? `must be at most ${issue.maximum}` : `must be less than ${issue.maximum}`;
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}`;
    case "invalid_format":
      return issue.format === "url"
        ? "not a URL (such as http://localhost:8080/v1)"
        : `not a valid ${issue.format}`;
    default:
      // The schema's own messages (a refine's) are already written for a person.
      return issue.message;
  }
}
