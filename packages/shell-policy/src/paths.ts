import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, normalize, relative } from "node:path";
import type { Workspace } from "@bridle/core";
import { isWithinAny } from "@bridle/core/node";
import type { ClassRule } from "./examples.js";
import { expandGlob, globMayMatchSecret, reachBelow } from "./reach.js";
import type { PathUse, PolicyMode } from "./types.js";
import type { PathClaim, Verdict } from "./verdict.js";

// Device files every command may name: they hold nothing and lead nowhere.
const HARMLESS = new Set(["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"]);

export interface PathContext {
  readonly workspace: Workspace;
  readonly realRoots: readonly string[];
  readonly mode: PolicyMode;
  /** Every directory the command may be in at this point (several after a `cd` in a branch); null is unknown. */
  readonly cwds: ReadonlySet<string | null>;
  /** Path checks left for this command line: each touches the file system, so they are bounded. */
  readonly pathChecks: { left: number };
  /** Resolved paths of this check, by absolute path: sub-commands often name the same files. */
  readonly realCache: Map<string, string>;
  /** Directory entries recursive reads may still list in this check (reach checks are bounded). */
  readonly reachBudget: { left: number };
}

// Paths whose target depends on the process that opens them (its descriptors, its memory, its
// environment): what the checker resolves is not what the command will reach.
const PROCESS_PATHS = /^\/(?:proc|dev\/fd|dev\/std(?:in|out|err)|dev\/tcp|dev\/udp)(?:\/|$)/;

export function realRootsOf(workspace: Workspace): string[] {
  return workspace.roots.map((root) => {
    try {
      return realpathSync.native(root);
    } catch {
      return root;
    }
  });
}

/**
 * The resolved paths of one check, and the links its command line makes before later commands use them
 * (links.ts): by the real path where each link will be, the text it holds.
 */
export class PathCache extends Map<string, string> {
  readonly links = new Map<string, string>();

  /** Record a link a command makes; what was resolved before it may now resolve elsewhere. */
  addLink(at: string, target: string): void {
    this.links.set(at, target);
    this.clear();
  }
}

/** Where a link made earlier in the line leads when the policy cannot say: a place outside every workspace. */
export const UNFOLLOWED = "/(a link made earlier in this line that the policy does not follow)";

/** Resolve symlinks of the longest existing prefix: a path not yet created still lands where its parents point. */
export function resolveReal(path: string, cache?: Map<string, string>): string {
  const known = cache?.get(path);
  if (known !== undefined) return known;
  const links = cache instanceof PathCache && cache.links.size > 0 ? cache.links : undefined;
  let real: string;
  try {
    // One syscall when the whole path exists; the kernel applies `..` after symlinks, as the shell will.
    // Links the line makes first are not on disk yet: then every component is walked.
    real = links ? walkComponents(path, links) : realpathSync.native(path);
  } catch {
    real = walkComponents(path, links);
  }
  cache?.set(path, real);
  return real;
}

/**
 * Resolve a path that does not fully exist, one component at a time: symlinks (dangling ones included,
 * and those the line makes first) are followed where they stand, and `..` applies to the real folder
 * reached so far, never lexically.
 */
function walkComponents(path: string, links?: ReadonlyMap<string, string>): string {
  const pending = path.split("/");
  let current = "/";
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const made = links?.get(next);
    if (made !== undefined && hops++ < 40) {
      pending.unshift(...made.split("/"));
      if (made.startsWith("/")) current = "/";
      continue;
    }
    let stats: ReturnType<typeof lstatSync> | undefined;
    try {
      stats = lstatSync(next);
    } catch {
      stats = undefined;
    }
    if (stats?.isSymbolicLink() && hops++ < 40) {
      const target = readlinkSync(next);
      pending.unshift(...target.split("/"));
      if (target.startsWith("/")) current = "/";
      continue;
    }
    current = next;
  }
  return current;
}

/** Where a path word lands from `cwd`: joined (not normalized) and resolved like the kernel would. */
export function landing(cwd: string, value: string, cache?: Map<string, string>): string {
  return resolveReal(isAbsolute(value) ? value : `${cwd}/${value}`, cache);
}

/** Check one path claim against the workspace, adding reasons and the path's record to the verdict. */
export function checkPath(claim: PathClaim, context: PathContext, verdict: Verdict, uses: PathUse[]): void {
  const { word, access } = claim;
  if (word.kind === "fd") return;
  if (context.pathChecks.left <= 0) {
    verdict.hard.push("too many paths to check; the command needs approval");
    return;
  }
  context.pathChecks.left--;
  if (word.kind === "dynamic") {
    verdict.hard.push(`"${word.text}" is not static, so the path it names cannot be checked`);
    return;
  }
  let value = word.value;
  if (value === "") return;
  if (HARMLESS.has(value) || /^\/dev\/fd\/[0-9]+$/.test(value)) return;
  if (PROCESS_PATHS.test(value.replace(/\/{2,}/g, "/"))) {
    if (access === "write") verdict.deny.push(`writes ${word.text}, outside the workspace`);
    else
      verdict.hard.push(
        `${word.text} names a process's files or descriptors; where it leads at run time cannot be known`,
      );
    return;
  }
  const glob = word.kind === "glob";
  const pattern = value;
  if (glob) {
    if (!claim.names && globMayMatchSecret(value))
      verdict.hard.push(`the pattern ${word.text} could match a secret file (credentials, keys, .env)`);
    // A pattern matches inside the folder its static prefix names.
    const star = value.search(/[*?[]/);
    value = value.slice(0, star).includes("/")
      ? value.slice(0, value.lastIndexOf("/", star) + 1) || "/"
      : ".";
  }
  for (const cwd of context.cwds) {
    if (cwd === null && !isAbsolute(value)) {
      verdict.hard.push(`"${word.text}" is relative to a directory the policy cannot know (after cd)`);
      return;
    }
    // Joined, not resolved: `link/..` must climb from where the link points, not from the link.
    const absolute = isAbsolute(value) ? value : `${cwd ?? "/"}/${value}`;
    const real = resolveReal(absolute, context.realCache);
    const inside = isWithinAny(context.realRoots, real);
    const secret = !claim.names && (context.workspace.isSecret(absolute) || context.workspace.isSecret(real));
    if (!claim.recursive) uses.push({ path: word.text, resolved: real, access, inside, secret });
    const shown = relative(context.realRoots[0] ?? "/", real) || ".";
    const guarded =
      access === "write" && inside
        ? (protectedReason(context, absolute, real) ?? createdFolderReason(context, absolute, real))
        : undefined;
    if (secret) verdict.deny.push(`${word.text} looks like a secret (credentials, keys, .env)`);
    else if (!inside && access === "write")
      verdict.deny.push(`writes ${word.text} (${real}), outside the workspace`);
    else if (!inside) verdict.hard.push(`reads ${word.text} (${real}), outside the workspace`);
    else if (guarded) verdict.hard.push(`writes ${word.text}, which is protected: ${guarded}`);
    else if ((claim.recursive || glob) && linksBelow(context.realCache, real))
      verdict.hard.push(
        `${word.text} reaches a link made earlier in this line, which a pattern or a recursive read would follow unchecked`,
      );
    else if (claim.recursive) {
      const reach = reachBelow(real, context, claim.only);
      if ("tooLarge" in reach)
        verdict.hard.push(`${word.text} holds too many files to check for secrets before reading them all`);
      else if (reach.found.length > 0)
        verdict.hard.push(
          `reads every file below ${word.text}, which include ${reach.found.map((f) => relative(context.realRoots[0] ?? "/", f)).join(", ")} (a secret or a link out of the workspace)`,
        );
    } else if (glob) {
      const problem = globMatchProblem(
        isAbsolute(pattern) ? pattern : `${cwd ?? "/"}/${pattern}`,
        word.text,
        claim,
        context,
      );
      if (problem) verdict.hard.push(problem);
      else if (access === "write" && context.mode === "read-only")
        verdict.soft.push(`writes ${shown} (read-only mode)`);
    } else if (access === "write" && context.mode === "read-only")
      verdict.soft.push(`writes ${shown} (read-only mode)`);
  }
}

function linksBelow(cache: Map<string, string>, folder: string): boolean {
  if (!(cache instanceof PathCache)) return false;
  for (const at of cache.links.keys()) if (at === folder || at.startsWith(`${folder}/`)) return true;
  return false;
}

/** Writes to what core's protected-path rule names ask, whichever command and spelling writes them. */
export const PROTECTED_RULE: ClassRule = {
  why: "writes to core's protected paths (git's folder, the agent's configuration) ask",
  examples: [
    ["echo x > .git/config", "ask"],
    ["touch .git/HEAD", "ask"],
    ["cp src/a.ts .git/commondir", "ask"],
    ["mkdir -p .git/modules/x", "ask"],
    ["echo x >> .git/objects/info/alternates", "ask"],
    ["tee .GIT/hooks/pre-commit < src/a.ts", "ask"],
    ["cd src && echo x > ../.git/info/exclude", "block"],
    ["echo x > evil/.git/config", "ask"],
    ["echo '{}' > bridle.config.json", "ask"],
    ["mkdir -p .bridle/agents && echo x > .bridle/agents/a.md", "ask"],
    ["mkdir -p .bridle/tmp && echo x > .bridle/tmp/x", "allow"],
    ["echo x > notes.txt", "allow"],
    ["cd up/.. && echo x > .git/config", "ask"],
  ],
};

// Core's one protected-path rule (git's folder, the agent's configuration, the user's config folder),
// as the command would name the path and as the kernel resolves it.
function protectedReason(context: PathContext, absolute: string, real: string): string | undefined {
  return context.workspace.protectedReason(normalize(absolute)) ?? context.workspace.protectedReason(real);
}

/**
 * A write creates the folders missing on its way (`mkdir -p`, `install -D`, `cp --parents`): each is
 * judged by core's rule too, so `mkdir -p bridle.config.ts/x` cannot make a protected name in passing.
 * Only a folder that does not exist yet is created; one that exists is merely entered.
 */
export const CREATED_FOLDER_RULE: ClassRule = {
  why: "every folder a write creates on its way is judged by core's protected-path rule",
  examples: [
    ["mkdir -p bridle.config.ts/x", "block"],
    ["mkdir -p src/bridle.config.json/x/y", "block"],
    ["mkdir -p x/../bridle.config.ts/y", "block"],
    ["mkdir -p BRIDLE.CONFIG.TS/x", "block"],
    ["install -D src/a.ts bridle.config.mjs/a.ts", "block"],
    ["cp --parents src/a.ts bridle.config.js", "block"],
    ["touch bridle.config.ts/x", "block"],
    ["mkdir -p .bridle/tmp/x/y", "allow"],
    ["mkdir -p bridle/config/x", "allow"],
    ["mkdir -p build/bridle.configs/x", "allow"],
    ["mkdir -p docs/bridle.config.d && touch docs/bridle.config.d/x", "block"],
    ["mkdir -p src/util/deep/er && touch src/util/deep/er/x", "allow"],
  ],
};

/** Why a folder the write to `absolute` creates on its way is protected (see CREATED_FOLDER_RULE). */
function createdFolderReason(context: PathContext, absolute: string, real: string): string | undefined {
  // Folders above a root are the user's, not created by this write: the walk stops at the roots.
  const roots = new Set([...context.realRoots, ...context.workspace.roots]);
  for (const path of new Set([normalize(absolute), real])) {
    for (
      let folder = dirname(path);
      !roots.has(folder) && folder !== dirname(folder);
      folder = dirname(folder)
    ) {
      const reason = context.workspace.protectedReason(folder);
      if (reason && !lstatSync(folder, { throwIfNoEntry: false }))
        return `it creates the folder ${relative(context.realRoots[0] ?? "/", folder)} on its way: ${reason}`;
    }
  }
  return undefined;
}

/**
 * What a pattern matches now, checked like the names it stands for: a match whose real path leaves the
 * workspace (a symlink at any level) or is a secret makes it ask.
 */
function globMatchProblem(
  absolute: string,
  shown: string,
  claim: PathClaim,
  context: PathContext,
): string | undefined {
  const matches = expandGlob(absolute, context);
  if (!matches) return `the pattern ${shown} matches too many files to check`;
  for (const match of matches) {
    const real = resolveReal(match, context.realCache);
    if (!isWithinAny(context.realRoots, real))
      return `the pattern ${shown} matches ${match}, which leads outside the workspace (${real})`;
    if (!claim.names && (context.workspace.isSecret(match) || context.workspace.isSecret(real)))
      return `the pattern ${shown} matches ${relative(context.realRoots[0] ?? "/", match)}, a secret`;
  }
  return undefined;
}
