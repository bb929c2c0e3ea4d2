import { readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

interface Rules {
  readonly matcher: Ignore;
  readonly patterns: readonly string[];
}

/**
 * .gitignore semantics for paths under `top` (a workspace root): every .gitignore from `top` down to a
 * path's folder applies, deeper files overriding shallower ones, negations included. Files are read once
 * per folder and cached for the filter's life (one tool call).
 */
export class GitignoreFilter {
  readonly #top: string;
  readonly #rules = new Map<string, Promise<Rules | undefined>>();

  constructor(top: string) {
    this.#top = top;
  }

  /** Whether an absolute path (a file, or a folder when `isDir`) is ignored. */
  async ignores(path: string, isDir = false): Promise<boolean> {
    let ignored = false;
    for (const folder of this.#foldersAbove(path)) {
      const rules = await this.#rulesOf(folder);
      if (!rules) continue;
      const rel = relative(folder, path).split(sep).join("/") + (isDir ? "/" : "");
      const verdict = rules.matcher.test(rel);
      if (verdict.ignored) ignored = true;
      else if (verdict.unignored) ignored = false;
    }
    return ignored;
  }

  /**
   * fast-glob `ignore` globs equivalent to the simple rules of the .gitignore files from `top` down to
   * `base`, so ignored folders (node_modules, dist) are never walked. Files with negations give none:
   * the exact filter still applies to every result, this only saves walking.
   */
  async pruneGlobs(base: string): Promise<string[]> {
    const globs: string[] = [];
    for (const folder of [...this.#foldersAbove(join(base, "x"))]) {
      const rules = await this.#rulesOf(folder);
      if (!rules || rules.patterns.some((pattern) => pattern.startsWith("!"))) continue;
      for (const pattern of rules.patterns) {
        const glob = toPruneGlob(pattern, folder === base);
        if (glob) globs.push(glob);
      }
    }
    return globs;
  }

  *#foldersAbove(path: string): Generator<string> {
    const chain: string[] = [];
    for (let folder = dirname(path); ; folder = dirname(folder)) {
      if (folder !== this.#top && !folder.startsWith(this.#top + sep)) break;
      chain.push(folder);
      if (folder === this.#top) break;
    }
    yield* chain.reverse();
  }

  #rulesOf(folder: string): Promise<Rules | undefined> {
    let rules = this.#rules.get(folder);
    if (!rules) {
      rules = readFile(join(folder, ".gitignore"), "utf8").then(
        (text) => {
          const patterns = text
            .split(/\r?\n/)
            .map((line) => line.replace(/(?<!\\)\s+$/, ""))
            .filter((line) => line !== "" && !line.startsWith("#"));
          return { matcher: ignore().add(patterns), patterns };
        },
        () => undefined,
      );
      this.#rules.set(folder, rules);
    }
    return rules;
  }
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
