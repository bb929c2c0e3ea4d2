import { type Dirent, readdirSync } from "node:fs";
import { join } from "node:path";
import { SECRET_PATH_RULES, type Workspace } from "@bridle/core";
import { isWithinAny } from "@bridle/core/node";
import { resolveReal } from "./paths.js";

/**
 * What a pattern or a recursive read can reach. The secret rule must hold for every file a command may
 * read, not only for the names written in it: `cat .e*`, `head .[e]nv`, `grep -r TOKEN .`.
 */

// Names isSecretPath flags exactly, and examples of each family it flags by prefix, suffix or key-file
// pattern, all taken from core's one list, so a name core adds is reachable here too.
const SECRET_EXAMPLES = [
  ...SECRET_PATH_RULES.names,
  ...SECRET_PATH_RULES.namePrefixes.flatMap((prefix) => [`${prefix}local`, `${prefix}production`]),
  ...SECRET_PATH_RULES.nameSuffixes.map((suffix) => `prod${suffix}`),
  ...SECRET_PATH_RULES.names
    .filter((name) => SECRET_PATH_RULES.keyFile.test(`${name}_sk`))
    .map((name) => `${name}_sk`),
  ...SECRET_PATH_RULES.folders,
];
const SECRET_SUFFIXES = SECRET_PATH_RULES.nameSuffixes;
const SECRET_PREFIXES = SECRET_PATH_RULES.namePrefixes;

const WILDCARD = /[*?[]/;

/**
 * Convert one glob component to a regular expression. `leadingDot`: whether a wildcard may match a
 * leading dot (find -name does; the shell does not without dotglob). Unknown bracket contents become
 * "any character", which only widens what is judged reachable.
 */
export function globRegex(component: string, leadingDot: boolean): RegExp {
  let out = "";
  for (let i = 0; i < component.length; i++) {
    const char = component[i] as string;
    if (char === "*") out += "[^/]*";
    else if (char === "?") out += "[^/]";
    else if (char === "[") {
      const end = component.indexOf("]", i + 2);
      const body = end === -1 ? "" : component.slice(i + 1, end);
      if (end === -1 || body.includes("[") || body.includes("\\")) {
        out += end === -1 ? "\\[" : "[^/]";
        if (end !== -1) i = end;
        continue;
      }
      const negated = body.startsWith("!") || body.startsWith("^");
      const set = (negated ? body.slice(1) : body).replace(/[\]\\^]/g, "\\$&");
      out += `[${negated ? "^" : ""}${set}]`;
      i = end;
    } else out += char.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  const guard = !leadingDot && WILDCARD.test(component[0] ?? "") ? "(?!\\.)" : "";
  try {
    return new RegExp(`^${guard}${out}$`, "i");
  } catch {
    // A bracket bash reads differently from JavaScript (`[z-a]`): match anything, which widens the reach.
    return /^/;
  }
}

/** Whether one glob component could match a name the secret rule covers. */
export function componentMayMatchSecret(component: string, leadingDot: boolean): boolean {
  const regex = globRegex(component, leadingDot);
  if (SECRET_EXAMPLES.some((name) => regex.test(name))) return true;
  const lower = component.toLowerCase();
  const first = lower.search(WILDCARD);
  if (first === -1) return false;
  const head = lower.slice(0, first);
  const tail = /[*?\]]$/.test(lower) ? "" : (lower.split(/[*?\]]/).at(-1) ?? "");
  const dotAllowed = leadingDot || head.startsWith(".");
  if (SECRET_SUFFIXES.some((suffix) => tail === "" || tail.endsWith(suffix) || suffix.endsWith(tail)))
    return true;
  return dotAllowed && SECRET_PREFIXES.some((prefix) => prefix.startsWith(head) || head.startsWith(prefix));
}

/** Whether a shell glob (a whole path) could name a secret file or pass through a secret folder. */
export function globMayMatchSecret(pattern: string): boolean {
  return pattern
    .split("/")
    .some((component) => WILDCARD.test(component) && componentMayMatchSecret(component, false));
}

export interface ReachContext {
  readonly workspace: Workspace;
  readonly realRoots: readonly string[];
  /** Directory entries left to read in this check: a walk past it fails closed. */
  readonly reachBudget: { left: number };
}

/** A secret (or a symlink leading out) found below a folder, or the reason the walk gave up. */
export type Reach = { readonly found: readonly string[] } | { readonly tooLarge: true };

/**
 * Every secret file, and every symlink that leads out of the workspace, below `folder` (whose name
 * matches `only`, when given: find -name filters what -exec sees). Walked now, at check time; a file
 * created between the check and the run is the sandbox's to stop.
 */
export function reachBelow(folder: string, context: ReachContext, only: readonly RegExp[] = []): Reach {
  const found: string[] = [];
  const pending = [folder];
  const matches = (name: string): boolean => only.every((regex) => regex.test(name));
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    context.reachBudget.left -= entries.length;
    if (context.reachBudget.left < 0) return { tooLarge: true };
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        // A secret folder (.ssh) is reported whole: its files could match any name filter.
        if (context.workspace.isSecret(join(path, "x"))) found.push(path);
        else pending.push(path);
        continue;
      }
      if (!matches(entry.name)) continue;
      if (context.workspace.isSecret(path)) found.push(path);
      else if (entry.isSymbolicLink()) {
        const real = resolveReal(path);
        if (!isWithinAny(context.realRoots, real) || context.workspace.isSecret(real)) found.push(path);
      }
      if (found.length >= 3) return { found };
    }
  }
  return { found };
}

/**
 * The paths a pattern (absolute) matches now, every level expanded the way bash does (a wildcard does
 * not match a leading dot), or undefined when that takes more than the check's budget. Matching is
 * case-insensitive, which can only add matches.
 */
export function expandGlob(pattern: string, context: ReachContext): string[] | undefined {
  let current = ["/"];
  for (const part of pattern.split("/")) {
    if (part === "") continue;
    if (!WILDCARD.test(part)) {
      // Joined as text: `link/..` climbs from where the link points, as the kernel does.
      current = current.map((dir) => (dir === "/" ? `/${part}` : `${dir}/${part}`));
      continue;
    }
    const regex = globRegex(part, false);
    const next: string[] = [];
    for (const dir of current) {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      context.reachBudget.left -= names.length;
      if (context.reachBudget.left < 0) return undefined;
      for (const name of names) if (regex.test(name)) next.push(dir === "/" ? `/${name}` : `${dir}/${name}`);
    }
    current = next;
  }
  return current;
}
