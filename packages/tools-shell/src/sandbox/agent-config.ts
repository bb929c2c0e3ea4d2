import { existsSync, lstatSync, realpathSync, statSync } from "node:fs";
import { basename } from "node:path";
import {
  isSecretPath,
  isWithin,
  PROTECTED_PATH_RULES,
  protectedPathReason,
  userConfigFolder,
} from "@bridle/core";
import { type EntryKind, type ScannedEntry, TreeScanner } from "./tree-scan.js";

/** One mount over a path found in a tree: read-only, writable again (inside a read-only one), or emptied. */
export interface FoundMount {
  readonly path: string;
  readonly kind: "dir" | "file";
  readonly mode: "read-only" | "writable" | "masked";
}

export interface TreeMountsRequest {
  /** Workspace roots: core's protected-path rule and the secret rule apply. */
  readonly writableRoots: readonly string[];
  /** Other folders the sandbox shows (parts of home, listed folders): only the secret rule applies. */
  readonly shownTrees: readonly string[];
  /** More paths kept read-only (the view's `protect`): only those inside a root count. */
  readonly protect?: readonly string[];
  /** Mask secret-named paths (off for a workspace that allows secrets). */
  readonly maskSecrets: boolean;
}

// How a folder's children are judged: by the rules; as the inside of the agent's folder (what is not a
// data folder is protected); or as the inside of a read-only path (only secrets still matter there).
type Place = "plain" | "agent-folder" | "read-only";

/** The scanner `treeMounts` needs: it shows the visitor folders and the names core's rules speak of. */
export function mountScanner(maxEntries?: number): TreeScanner {
  return new TreeScanner({
    ...(maxEntries === undefined ? {} : { maxEntries }),
    interesting: (name) => classOf(name) !== 0,
    // Whatever the agent's folder holds but its data is protected, whatever its name.
    whole: (folder) => (classOf(basename(folder)) & AGENT_FOLDER) !== 0,
  });
}

/**
 * What the sandbox mounts over the trees it shows (walked by a `mountScanner`), derived from core's rules (`protectedPathReason`,
 * `isSecretPath`), never from a list of its own:
 * - every protected entry of a workspace root read-only, whole: each `.git` at any depth (folder or
 *   gitfile; its config, hooks, info, HEAD, commondir, modules, worktrees, objects/info/alternates),
 *   `bridle.config.*` at any depth, and the user's Bridle config folder when a root holds it (masked);
 * - each `.bridle` folder read-only but for its data folders, bound writable again, so nothing but data
 *   can be created in it;
 * - every secret-named file or folder of every shown tree replaced by an empty one, in folders at any
 *   depth (but inside `.git`, which git names itself).
 * Mounts come ordered by depth, so each lands on the one above it. Only existing paths are mounted
 * over: see the README for what can still be created.
 */
export function treeMounts(scanner: TreeScanner, request: TreeMountsRequest): FoundMount[] {
  return mountsAndEntries(scanner, request).mounts;
}

/** What one walk before a command finds: its mounts, and what the check after it compares against. */
export interface CommandView {
  readonly mounts: FoundMount[];
  /**
   * The protected entries of the workspace roots, as named (links not followed), each with its file's
   * identity (`identityOf`): a folder moved with its `.git` still holds the same one.
   */
  readonly protectedEntries: ReadonlyMap<string, string>;
  /** The secret-named entries of the workspace roots masked whole: nothing could be created inside. */
  readonly maskedEntries: ReadonlySet<string>;
  /** Whether the user's Bridle config folder existed, where a root holds it. */
  readonly configFolderExisted: boolean;
}

/** `treeMounts`, with what the walk saw of the roots kept for the check after the command. */
export function mountsAndEntries(scanner: TreeScanner, request: TreeMountsRequest): CommandView {
  const found: FoundMount[] = [];
  const protectedEntries = new Map<string, string>();
  const maskedEntries = new Set<string>();
  const shown = [...request.writableRoots, ...request.shownTrees];
  const add = (entry: ScannedEntry, mode: FoundMount["mode"]) => {
    const mount = mountOf(entry.path, entry.kind, mode, shown);
    if (mount) found.push(mount);
  };
  const visit = rootVisitor(
    () => request.maskSecrets,
    (entry, finding) => {
      if (finding === "masked") {
        maskedEntries.add(entry.path);
        add(entry, "masked");
      } else if (finding === "protected" || finding === "agent-content" || finding === "agent-link") {
        protectedEntries.set(entry.path, identityOf(entry.path));
        // A link by the agent folder's name makes its target the agent's folder: read-only whole.
        if (finding !== "agent-content") add(entry, "read-only");
      } else if (finding === "agent-folder") add(entry, "read-only");
      else if (entry.kind === "dir") add(entry, "writable");
    },
  );
  scanner.scan((tree) => {
    for (const root of request.writableRoots) tree<Place>(root, "plain", visit);
    if (request.maskSecrets) {
      for (const root of request.shownTrees) {
        tree<true>(root, true, (entry) => {
          const is = classOf(entry.name);
          if (!(is & SECRET || (entry.kind === "dir" && is & SECRET_FOLDER))) return true;
          add(entry, "masked");
          return undefined;
        });
      }
    }
  });
  const config = userConfigFolder();
  const configFolderExisted = existsSync(config);
  for (const root of request.writableRoots) {
    if (isWithin(root, config) && configFolderExisted) {
      const mount = mountOf(config, "dir", "masked", shown);
      if (mount) found.push(mount);
    }
    for (const path of request.protect ?? []) {
      if (!isWithin(root, path)) continue;
      const mount = mountOf(path, "link", "read-only", shown);
      if (mount) found.push(mount);
    }
  }
  return { mounts: sortByDepth(found), protectedEntries, maskedEntries, configFolderExisted };
}

/**
 * The protected entries of the workspace roots now, walked as `before` was walked (the same scanner,
 * whose kept listings make it one lstat per unchanged folder) but for two things: a secret-named folder
 * `before` did not mask is entered (the command made it, on the host, and could have put a `.git` in
 * it), and a read-only place is not (nothing could be created there). Links are not followed.
 */
export function protectedEntriesNow(
  scanner: TreeScanner,
  writableRoots: readonly string[],
  before: CommandView,
): ScannedEntry[] {
  const found: ScannedEntry[] = [];
  const visit = rootVisitor(
    (entry) => before.maskedEntries.has(entry.path),
    (entry, finding) => {
      if (finding === "protected" || finding === "agent-content" || finding === "agent-link")
        found.push(entry);
    },
  );
  scanner.scan(
    (tree) => {
      for (const root of writableRoots)
        tree<Place>(root, "plain", (entry, place) => {
          const into = visit(entry, place);
          return into === "read-only" ? undefined : into;
        });
    },
    { partial: true },
  );
  return found;
}

/**
 * What the walk of a workspace root finds, by core's rules: a secret-named entry (masked whole), a
 * protected one (read-only whole), the agent's folder (read-only but for its data folders), something
 * in it that is not a data folder, one of its data folders (writable again), or a link by the agent
 * folder's name (whatever its target holds is read as the agent's folder).
 */
type Finding = "masked" | "protected" | "agent-folder" | "agent-content" | "data-folder" | "agent-link";

/**
 * The visitor of a workspace root, shared by the walk before a command and the check after it so both
 * judge each entry alike. `masks` says whether a secret-named entry is masked (and so not entered).
 */
function rootVisitor(
  masks: (entry: ScannedEntry) => boolean,
  report: (entry: ScannedEntry, finding: Finding) => void,
): (entry: ScannedEntry, place: Place) => Place | undefined {
  return (entry, place) => {
    const is = classOf(entry.name);
    if ((is & SECRET || (entry.kind === "dir" && is & SECRET_FOLDER)) && masks(entry)) {
      report(entry, "masked");
      return undefined;
    }
    // Git names what it keeps in its folder itself: nothing there is a user's secret file.
    const into: Place | undefined = is & GIT_FOLDER ? undefined : "read-only";
    if (place === "read-only") return into;
    // The agent's folder is bound read-only whole, its data folders writable again.
    if (place === "agent-folder") {
      if (!(is & DATA_FOLDER)) {
        report(entry, "agent-content");
        return into;
      }
      report(entry, "data-folder");
      return "plain";
    }
    if (is & PROTECTED) {
      report(entry, "protected");
      return into;
    }
    if (is & AGENT_FOLDER && entry.kind === "dir") {
      report(entry, "agent-folder");
      return "agent-folder";
    }
    if (is & AGENT_FOLDER && entry.kind === "link") report(entry, "agent-link");
    return "plain";
  };
}

/**
 * A file's identity, `dev:ino:ctime` (empty when it is gone): an inode number freed by a deletion is
 * soon given to the next new file, whose ctime is its own; renaming a folder leaves its entries' ctimes.
 */
export function identityOf(path: string): string {
  try {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    return stat ? `${stat.dev}:${stat.ino}:${stat.ctimeMs}` : "";
  } catch {
    return "";
  }
}

const SECRET = 1;
const SECRET_FOLDER = 2;
const PROTECTED = 4;
const GIT_FOLDER = 8;
const AGENT_FOLDER = 16;
const DATA_FOLDER = 32;
const classes = new Map<string, number>();

/**
 * What core's rules say of one name, kept per name (a workspace repeats `index.ts` a thousand times).
 * Judging the name alone is judging the path: the walk never enters a secret folder (masked whole) nor a
 * protected one (its state says read-only), and enters the agent's folder in a state of its own, so no
 * folder above an entry changes what the rules say of it.
 */
function classOf(name: string): number {
  let is = classes.get(name);
  if (is !== undefined) return is;
  const lower = name.toLowerCase();
  is =
    (isSecretPath(name) ? SECRET : 0) |
    // A folder whose every file is secret (`.ssh`, `.aws`).
    (isSecretPath(`${name}/x`) ? SECRET_FOLDER : 0) |
    (protectedPathReason(name) !== undefined ? PROTECTED : 0) |
    (PROTECTED_PATH_RULES.folders.includes(lower) ? GIT_FOLDER : 0) |
    (lower === PROTECTED_PATH_RULES.agentFolder ? AGENT_FOLDER : 0) |
    (PROTECTED_PATH_RULES.agentDataFolders.includes(lower) ? DATA_FOLDER : 0);
  if (classes.size > 100_000) classes.clear();
  classes.set(name, is);
  return is;
}

/**
 * A mount follows symbolic links, so a link is mounted at its real path, and only when that lies in a
 * tree the sandbox shows (elsewhere it is absent anyway; a dangling one would make bwrap create a file
 * on the host to mount over).
 */
function mountOf(
  path: string,
  kind: EntryKind,
  mode: FoundMount["mode"],
  shown: readonly string[],
): FoundMount | undefined {
  if (kind !== "link") return { path, kind, mode };
  try {
    const real = realpathSync(path);
    if (!shown.some((tree) => isWithin(tree, real) || isWithin(realOr(tree), real))) return undefined;
    return { path: real, kind: statSync(real).isDirectory() ? "dir" : "file", mode };
  } catch {
    return undefined;
  }
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

// Nested roots are walked twice, and a link may point at a path also found itself: each mount once.
function sortByDepth(mounts: FoundMount[]): FoundMount[] {
  const seen = new Set<string>();
  const unique = mounts.filter((mount) => {
    const key = `${mount.mode} ${mount.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const depth = (path: string) => path.split("/").length;
  return unique.sort((a, b) => depth(a.path) - depth(b.path));
}
