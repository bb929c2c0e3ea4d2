import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { isWithin } from "@bridle/core";
import ignore, { type Ignore } from "ignore";

interface Rules {
  readonly matcher: Ignore;
  readonly patterns: readonly string[];
}

interface Chained {
  readonly folder: string;
  readonly rules: Rules;
}

const EMPTY: readonly Chained[] = [];

/**
 * .gitignore semantics for paths under `top` (a workspace root): every .gitignore from `top` down to a
 * path's folder applies, deeper files overriding shallower ones, negations included. Each folder is
 * looked at once per filter (one tool call). Lookups are synchronous on purpose: a walk meets thousands of
 * folders, almost none with a .gitignore, and a failed existence check costs far less than a promise.
 */
export class GitignoreFilter {
  readonly #top: string;
  readonly #chains = new Map<string, readonly Chained[]>();

  constructor(top: string) {
    this.#top = top;
  }

  /** Whether an absolute path (a file, or a folder when `isDir`) is ignored. */
  ignores(path: string, isDir = false): boolean {
    return this.ignoresIn(dirname(path), path, isDir);
  }

  /** The same, for a caller that already knows the path's folder (a walk: no path parsing per file). */
  ignoresIn(folder: string, path: string, isDir = false): boolean {
    const chain = this.#chainOf(folder);
    if (chain.length === 0) return false;
    let ignored = false;
    for (const { folder: owner, rules } of chain) {
      const rel = relative(owner, path).split(sep).join("/") + (isDir ? "/" : "");
      const verdict = rules.matcher.test(rel);
      if (verdict.ignored) ignored = true;
      else if (verdict.unignored) ignored = false;
    }
    return ignored;
  }

  /**
   * fast-glob `ignore` globs for the simple rules of the .gitignore files from `top` down to `base`, so
   * ignored folders (node_modules, dist) are never walked. A file with negations gives none: the exact
   * filter still applies to every result, this only saves walking.
   */
  pruneGlobs(base: string): string[] {
    const globs: string[] = [];
    for (const { folder, rules } of this.#chainOf(base)) {
      if (rules.patterns.some((pattern) => pattern.startsWith("!"))) continue;
      for (const pattern of rules.patterns) {
        const glob = toPruneGlob(pattern, folder === base);
        if (glob) globs.push(glob);
      }
    }
    return globs;
  }

  /** The .gitignore files that apply in a folder, shallowest first. */
  #chainOf(folder: string): readonly Chained[] {
    const known = this.#chains.get(folder);
    if (known) return known;
    let chain = EMPTY;
    if (isWithin(this.#top, folder)) {
      const above = folder === this.#top ? EMPTY : this.#chainOf(dirname(folder));
      const rules = readRules(folder);
      chain = rules ? [...above, { folder, rules }] : above;
    }
    this.#chains.set(folder, chain);
    return chain;
  }
}

function readRules(folder: string): Rules | undefined {
  const file = join(folder, ".gitignore");
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const patterns = text
    .split(/\r?\n/)
    .map((line) => line.replace(/(?<!\\)\s+$/, ""))
    .filter((line) => line !== "" && !line.startsWith("#"));
  return { matcher: ignore().add(patterns), patterns };
}

/** A glob that prunes what a simple gitignore pattern ignores, or undefined when it is not simple. */
function toPruneGlob(pattern: string, atBase: boolean): string | undefined {
  if (pattern.includes("\\") || pattern.startsWith("!")) return undefined;
  const body = pattern.replace(/\/+$/, "");
  if (body === "" || body.includes("**")) return undefined;
  // `x/**` only removes what is under a folder x; files named like the pattern are left to the exact filter.
  if (body.includes("/")) return atBase ? `${body.replace(/^\//, "")}/**` : undefined;
  return `**/${body}/**`;
}
