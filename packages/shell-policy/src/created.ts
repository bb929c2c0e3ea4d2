import { type Dirent, readdirSync, statSync } from "node:fs";
import { basename, isAbsolute, join, normalize, relative, sep } from "node:path";
import { isWithin, PROTECTED_PATH_RULES } from "@bridle/core";
import { type ParsedArgs, parseArgs } from "./argv.js";
import type { ClassRule } from "./examples.js";
import { type PathContext, resolveReal } from "./paths.js";
import { expandGlob } from "./reach.js";
import type { Verdict } from "./verdict.js";
import { type ShellWord, staticWord } from "./words.js";

/**
 * A copy, move, link or install whose destination is a folder writes `DEST/NAME`, not `DEST`: the path
 * written is judged, not the folder's name. Both `DEST` and `DEST/basename(SOURCE)` are judged whether
 * or not DEST is a folder now: it may become one earlier in the line (`mkdir`, `mv`, a checkout) or
 * between the check and the run, and the extra path only matters when it is protected, where asking
 * is right either way. `-t DIR` always writes inside; `-T` never does; `cp --parents` writes DEST/SOURCE.
 */
export const DESTINATION_RULE: ClassRule = {
  why: "a copy, move, link or install into a folder is judged by the path it writes there",
  examples: [
    ["cp tools/run.sh .bridle", "block"],
    ["mv list.txt .bridle", "block"],
    ["printf '%s\\n' ./.env > lst && mv lst .bridle", "block"],
    ["echo 'cat ../outside/canary.txt' >> run.sh && mv run.sh .bridle", "block"],
    ["cp -t .bridle src/a.ts", "block"],
    ["cp --target-directory=.bridle src/a.ts", "block"],
    ["mkdir -p d && cp src/a.ts d && mv d .bridle", "block"],
    ["cp src/a.ts src/b.ts .bridle", "block"],
    ["cp src/*.ts .bridle", "block"],
    ["cp src/a.ts .bri*", "block"],
    ["cp --parents src/a.ts .bridle", "block"],
    ["cp $'tools/run.sh' .bridle", "block"],
    ["ln -s src/a.ts .bridle", "block"],
    ["install -D src/a.ts .bridle/agents/a.md", "block"],
    ["install -t .bridle src/a.ts", "block"],
    ["rsync src/a.ts .bridle", "block"],
    ["rsync host:run.sh .bridle", "block"],
    ["mkdir -p .bridle/tmp && cp src/a.ts .bridle/tmp", "allow"],
    ["cp -T src/a.ts .bridle/tmp", "allow"],
    ["mkdir -p out && cp src/a.ts src/b.ts out", "allow"],
    ["cp src/a.ts out.ts && mv out.ts docs", "allow"],
    ["cp -t docs src/a.ts", "allow"],
  ],
};

/**
 * A recursive copy or a move of a folder creates everything below it at the destination, a nested
 * `.git` or `.bridle/agents` included: what it would create is judged by a bounded walk of the source
 * now. A walk cut short asks. Chosen over asking for every recursive copy: copying a source tree is
 * daily work, and the policy already walks the same trees for secrets and links.
 */
export const COPIED_TREE_RULE: ClassRule = {
  why: "a recursive copy or a move of a folder is judged by every path it would create",
  examples: [
    ["cp -a vendor M", "block"],
    ["cp -r vendor M", "block"],
    ["mv vendor L", "block"],
    ["mkdir -p M && cp -R vendor M", "block"],
    ["cp -r tree/. .bridle", "block"],
    ["cp -rT tree .bridle", "block"],
    ["rsync -a tree/ .bridle", "block"],
    ["rsync -av --exclude x vendor/ M", "block"],
    ["mv tree .bridle/x", "block"],
    ["cp -r vendor/nested/. N", "block"],
    ["mv -T .bridle b", "block"],
    ["cp -rL src c", "block"],
    ["mkdir S && mv vendor/nested S", "block"],
    ["cp -r src c", "allow"],
    ["cp -a docs d && mv d e", "allow"],
    ["mv -T data data2", "allow"],
    ["mkdir -p .bridle && cp -r data/. .bridle/tmp", "allow"],
  ],
};

// Entries a walk of one source tree reads before it gives up and asks (the check's whole reach budget,
// shared with the secret walks, is 20,000): a copy of a tree this large is rare enough to ask about.
const TREE_LIMIT = 10_000;

interface Destination {
  readonly sources: readonly ShellWord[];
  readonly target: ShellWord;
  /** true: always into the folder (-t, several sources); false: never (-T); undefined: when it is one. */
  readonly into: boolean | undefined;
  /** cp --parents, rsync -R: the source's whole name is recreated under the destination. */
  readonly parents: boolean;
}

const has = (args: ParsedArgs, ...flags: string[]) => args.flags.some((f) => flags.includes(f.flag));

// rsync's options that take the next word as their value (so it is not read as a source).
const RSYNC_VALUES = new Set(
  `-e -f -B -T -M --rsh --rsync-path --filter --exclude --include --exclude-from --include-from
   --files-from --temp-dir --partial-dir --backup-dir --suffix --link-dest --compare-dest --copy-dest
   --log-file --log-file-format --out-format --password-file --chmod --chown --usermap --groupmap
   --timeout --contimeout --bwlimit --max-size --min-size --max-delete --block-size --port --info
   --debug --skip-compress --compress-choice --checksum-choice --iconv --modify-window --remote-option`.split(
    /\s+/,
  ),
);
// rsync's remote places (`host:path`, `rsync://…`): written elsewhere, and rsync asks for the network.
const REMOTE = /^(?:[^/]*:|rsync:\/\/)/;

/**
 * rsync is not a command the policy allows, but a saved allow rule may lift its question: its
 * destination, and what it creates there, are judged like cp's so that no rule lets it write a
 * protected path. A source with a trailing slash copies the folder's contents, which the tree walk's
 * DEST/… base covers.
 */
export function judgeRsync(words: readonly ShellWord[], verdict: Verdict, context: PathContext): void {
  const args = parseArgs(words, { values: RSYNC_VALUES });
  const target = args.positionals.at(-1);
  if (args.positionals.length < 2 || !target || REMOTE.test(target.value)) return;
  // A remote source still lands here under its name; only local sources are walked (a remote one is
  // no folder on this disk).
  verdict.paths.push({ word: target, access: "write" });
  judgeCreated("rsync", args, verdict, context);
}

/** Sources and destination of cp, mv, ln, install or rsync, or undefined when it has none (`install -d`). */
function destinationOf(name: string, args: ParsedArgs): Destination | undefined {
  if (name === "install" && has(args, "-d", "--directory")) return undefined;
  const target =
    name === "rsync"
      ? undefined
      : args.flags.find((f) => f.flag === "-t" || f.flag === "--target-directory")?.value;
  const operands = args.positionals;
  const parents =
    (name === "cp" && has(args, "--parents")) || (name === "rsync" && has(args, "-R", "--relative"));
  const never = name !== "rsync" && has(args, "-T", "--no-target-directory");
  if (target) return { sources: operands, target, into: true, parents };
  if (operands.length >= 2)
    return {
      sources: operands.slice(0, -1),
      target: operands.at(-1) as ShellWord,
      into: never ? false : operands.length > 2 || parents ? true : undefined,
      parents,
    };
  // `ln TARGET` makes the link in the current folder, under the target's name.
  if (name === "ln" && operands.length === 1)
    return { sources: operands, target: staticWord("."), into: true, parents };
  return undefined;
}

/** Whether this command copies or moves whole folders (cp and rsync -r/-R/-a, any mv). */
function copiesTrees(name: string, args: ParsedArgs): boolean {
  if (name === "mv") return true;
  if (name === "rsync") return has(args, "-r", "-a", "--recursive", "--archive");
  return name === "cp" && has(args, "-r", "-R", "-a", "--recursive", "--archive");
}

/** Whether the copy follows links inside the tree, copying what they point at (cp -L, rsync -L). */
function follows(name: string, args: ParsedArgs): boolean {
  if (name === "cp") return has(args, "-L", "--dereference");
  return name === "rsync" && has(args, "-L", "--copy-links", "-k", "--copy-dirlinks");
}

/**
 * Judge what a copy, move, link or install creates beyond the words it names: the path written inside
 * a destination folder (claims the verdict checks like any write) and, for a folder copied or moved,
 * the protected paths it would create below the destination (asked about here).
 */
export function judgeCreated(name: string, args: ParsedArgs, verdict: Verdict, context: PathContext): void {
  if (!["cp", "mv", "ln", "install", "rsync"].includes(name)) return;
  const dest = destinationOf(name, args);
  if (!dest || dest.target.kind === "dynamic") return;
  if (dest.target.kind === "glob") {
    // `cp x .bri*` lands in whatever the pattern matches at run time.
    verdict.hard.push(`the destination ${dest.target.text} is a pattern`);
    return;
  }
  const trees = copiesTrees(name, args);
  for (const source of dest.sources) {
    // A word the policy cannot read is asked about by the path check of the word itself.
    if (source.kind === "dynamic") continue;
    for (const cwd of context.cwds) {
      if (cwd === null) continue;
      const names = sourceNames(source, cwd, context);
      if (!names) {
        verdict.hard.push(`the pattern ${source.text} matches too many files to judge where they land`);
        return;
      }
      for (const [written, path] of names) {
        const landed = dest.parents ? written.replace(/^\/+/, "") : basename(written);
        if (dest.into !== false && landed !== "" && landed !== ".")
          verdict.paths.push({ word: joined(dest.target, landed), access: "write" });
        if (!trees) continue;
        const problem = treeProblem(path, dest, landed, cwd, context, {
          moves: name === "mv",
          follows: follows(name, args),
        });
        if (problem) {
          verdict.hard.push(`${name} ${source.text} ${problem}`);
          return;
        }
      }
    }
  }
}

/** The names a source word stands for (a pattern's current matches), each with its absolute path. */
function sourceNames(source: ShellWord, cwd: string, context: PathContext): [string, string][] | undefined {
  const absolute = (path: string) => (isAbsolute(path) ? path : `${cwd}/${path}`);
  if (source.kind !== "glob") return [[source.value, absolute(source.value)]];
  const matches = expandGlob(absolute(source.value), context);
  return matches?.map((match) => [isAbsolute(source.value) ? match : relative(cwd, match), match]);
}

function joined(folder: ShellWord, name: string): ShellWord {
  const value = `${folder.value.replace(/\/+$/, "")}/${name}`;
  return { text: value, value, kind: "static" };
}

/**
 * The first protected path a copy of the folder at `source` would create (at DEST/NAME/… when DEST is
 * a folder, at DEST/… when it is not or `-T` says so), or why the walk stopped; undefined for a file.
 */
function treeProblem(
  source: string,
  dest: Destination,
  landed: string,
  cwd: string,
  context: PathContext,
  how: { readonly moves: boolean; readonly follows: boolean },
): string | undefined {
  const real = resolveReal(source, context.realCache);
  if (!statSync(real, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  const target = normalize(isAbsolute(dest.target.value) ? dest.target.value : `${cwd}/${dest.target.value}`);
  const targetReal = resolveReal(target, context.realCache);
  const bases = new Set<string>();
  for (const base of [target, targetReal]) {
    if (dest.into !== true) bases.add(base);
    if (dest.into !== false) bases.add(join(base, landed));
  }
  // A move takes its tree away too: a protected path below the source (`.bridle/agents`) changes.
  if (how.moves) bases.add(real);
  // Core's rule has the last word on each path; it is asked only where it could answer yes (a name it
  // names on the way, or a base inside or around a protected place), which keeps a walk cheap.
  const places = context.workspace.protectedPaths;
  const all = [...bases];
  const everywhere = all.filter(
    (base) =>
      base.split(sep).some(namedByRule) ||
      places.some((place) => isWithin(base, place) || isWithin(place, base)),
  );
  const pending: [string, boolean][] = [[real, false]];
  let left = TREE_LIMIT;
  while (pending.length > 0) {
    const [folder, named] = pending.pop() as [string, boolean];
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    left -= entries.length;
    context.reachBudget.left -= entries.length;
    if (left < 0 || context.reachBudget.left < 0)
      return `copies a folder too large to check for protected paths (.git, the agent's settings) below it`;
    for (const entry of entries) {
      const below = named || namedByRule(entry.name);
      const path = join(folder, entry.name);
      const targets = below ? all : everywhere;
      const rel = targets.length > 0 ? relative(real, path) : "";
      for (const base of targets) {
        const reason = context.workspace.protectedReason(join(base, rel));
        if (reason)
          return `would ${base === real ? "move away" : "create"} ${relative(context.realRoots[0] ?? "/", join(base, rel))}, which is protected: ${reason}`;
      }
      if (
        entry.isDirectory() ||
        (how.follows && entry.isSymbolicLink() && statSync(path, { throwIfNoEntry: false })?.isDirectory())
      )
        pending.push([path, below]);
    }
  }
  return undefined;
}

/** Whether core's rule names this file or folder name itself (`.git`, `.bridle`, `bridle.config.*`). */
function namedByRule(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    PROTECTED_PATH_RULES.folders.includes(lower) ||
    lower === PROTECTED_PATH_RULES.agentFolder ||
    PROTECTED_PATH_RULES.namePrefixes.some((prefix) => lower.startsWith(prefix))
  );
}
