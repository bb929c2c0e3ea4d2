import { type Dirent, lstatSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import type { ClassRule } from "./examples.js";
import { PathCache, resolveReal, UNFOLLOWED } from "./paths.js";
import { DESTRUCTIVE, specArgs, WORKSPACE_WRITERS } from "./specs.js";
import type { ShellWord } from "./words.js";

/**
 * A link made earlier in the same line is followed as the kernel will follow it: `cd src && cp -s .. L
 * && mv L .. && cat ../L/x` reads through a link that is not on disk when the line is judged. Each
 * command that makes a link (`ln`, `cp -s`, `cp -l`) or carries one to another place (`mv`, `cp -P`,
 * `cp -r`, `cp -a`, a hard link of a link) records it in the check's PathCache; later paths resolve
 * through it. A folder moved or copied with links below it is recorded as one the policy does not follow.
 */
export const LINK_RULE: ClassRule = {
  why: "links a line makes (ln, cp -s/-l/-P/-r/-a, mv) are followed by the later commands of the line",
  examples: [
    // src/parent is a link to "..": moved up a level, it leads out of the workspace.
    ["mv src/parent p && cat p/outside/canary.txt", "block"],
    [
      "mkdir -p src/x src/outside && touch src/outside/canary.txt && cd src/x && cp -s ../outside/canary.txt L && mv L ../.. && cd ../.. && cat L",
      "block",
    ],
    ["cp -s src/a.ts L && cat L", "allow"],
    ["cp -P src/parent p && cat p/outside/canary.txt", "block"],
    ["cp -a src c && cat c/parent/outside/canary.txt", "block"],
    ["cp -r src c && grep -r KEY c", "block"],
    ["cp -r docs d && cat d/readme.md", "allow"],
    ["cp -l src/parent p && cat p/outside/canary.txt", "block"],
    ["cp -s src/parent/.. q && cat q/outside/canary.txt", "block"],
    ["mv src/parent p && cat p*/outside/canary.txt", "block"],
  ],
};

// Folder entries a moved or copied tree may hold before the policy stops looking for links in it.
const TREE_LIMIT = 2_000;

/** Record the links `name args` makes, run from each folder in `cwds`. */
export function recordLinks(
  name: string,
  args: readonly ShellWord[],
  cwds: ReadonlySet<string | null>,
  cache: Map<string, string>,
): void {
  if (!(cache instanceof PathCache)) return;
  if (name !== "ln" && name !== "cp" && name !== "mv") return;
  const spec = name === "ln" ? DESTRUCTIVE.ln : WORKSPACE_WRITERS[name];
  if (!spec || args.some((word) => word.kind !== "static")) return;
  const parsed = specArgs(spec, args);
  const has = (...flags: string[]) => parsed.flags.some((f) => flags.includes(f.flag));
  const symbolic =
    (name === "ln" && has("-s", "--symbolic")) || (name === "cp" && has("-s", "--symbolic-link"));
  // What carries a link as a link: a rename, a hard link (of the link itself), cp without -L.
  const keeps =
    name === "mv" ||
    (name === "ln" && !has("-L", "--logical")) ||
    (name === "cp" &&
      !has("-L", "--dereference") &&
      has("-P", "-d", "-a", "-R", "-r", "-l", "--no-dereference", "--archive", "--recursive", "--link"));
  if (!symbolic && !keeps) return;
  const target = parsed.flags.find((f) => f.flag === "-t" || f.flag === "--target-directory")?.value;
  const operands = parsed.positionals.map((word) => word.value);
  let sources: string[];
  let destination: string;
  let intoFolder: boolean | undefined;
  if (target) {
    sources = operands;
    destination = target.value;
    intoFolder = true;
  } else if (operands.length >= 2) {
    sources = operands.slice(0, -1);
    destination = operands.at(-1) as string;
    intoFolder = operands.length > 2 ? true : has("-T", "--no-target-directory") ? false : undefined;
  } else if (name === "ln" && operands.length === 1) {
    sources = operands;
    destination = ".";
    intoFolder = true;
  } else return;
  for (const cwd of cwds) {
    if (cwd === null) continue;
    const absolute = (path: string) => (isAbsolute(path) ? path : `${cwd}/${path}`);
    const destReal = resolveReal(absolute(destination), cache);
    const folder = intoFolder ?? statSync(destReal, { throwIfNoEntry: false })?.isDirectory() === true;
    for (const source of sources) {
      const at = folder ? join(destReal, basename(source)) : destReal;
      const key = join(resolveReal(dirname(at), cache), basename(at));
      if (symbolic) {
        // ln -r writes the path relative to the link's folder: the same place as the source from here.
        cache.addLink(key, has("-r", "--relative") ? resolveReal(absolute(source), cache) : source);
        continue;
      }
      if (!keeps) continue;
      const carried = carriedLink(absolute(source), cache);
      if (carried !== undefined) cache.addLink(key, carried);
    }
  }
}

/**
 * What a copy or move of `source` (keeping links) puts at its destination that later paths may follow:
 * the text of a link, UNFOLLOWED for a folder with links below it, or undefined for plain files and folders.
 */
function carriedLink(source: string, cache: PathCache): string | undefined {
  const parent = resolveReal(dirname(source), cache);
  const at = join(parent, basename(source));
  const made = cache.links.get(at);
  if (made !== undefined) return made;
  const stats = lstatSync(at, { throwIfNoEntry: false });
  if (stats?.isSymbolicLink()) return readlinkSync(at);
  if (!stats?.isDirectory()) return undefined;
  for (const link of cache.links.keys()) if (link.startsWith(`${at}/`)) return UNFOLLOWED;
  return holdsLink(at) ? UNFOLLOWED : undefined;
}

/** Whether a folder holds a symlink at any depth (or more entries than the policy looks through). */
function holdsLink(folder: string): boolean {
  const pending = [folder];
  let left = TREE_LIMIT;
  while (pending.length > 0) {
    let entries: Dirent[];
    try {
      entries = readdirSync(pending.pop() as string, { withFileTypes: true });
    } catch {
      continue;
    }
    left -= entries.length;
    if (left < 0) return true;
    for (const entry of entries) {
      if (entry.isSymbolicLink()) return true;
      if (entry.isDirectory()) pending.push(join(entry.parentPath, entry.name));
    }
  }
  return false;
}
