import { randomBytes } from "node:crypto";
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative } from "node:path";
import { isErrno, isWithin, protectedPathReason, ToolFailure, userConfigFolder } from "@bridle/core";
import type { CommandExit } from "../runners/runner.js";
import { type CommandView, identityOf, protectedEntriesNow } from "./agent-config.js";
import type { ScannedEntry, TreeScanner } from "./tree-scan.js";

/** A protected path a sandboxed command created, moved out of the workspace after it ended. */
type QuarantinedPath = NonNullable<CommandExit["quarantined"]>[number];

/** What the check after a command found and did, and the lines the model is told. */
export interface QuarantineReport {
  readonly quarantined: readonly QuarantinedPath[];
  readonly notes: readonly string[];
}

// Lines of one result: a command that made ten thousand repositories is told of the first ones and the count.
const MAX_NOTES = 20;
const MAX_SHOWN_PATH = 160;

/**
 * The folder quarantined paths are moved into: `$XDG_STATE_HOME/bridle/quarantine` when that is
 * absolute, else `~/.local/state/bridle/quarantine` (the user's Bridle state, outside any repository).
 */
export function defaultQuarantineFolder(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME;
  return join(
    state && isAbsolute(state) ? state : join(homedir(), ".local", "state"),
    "bridle",
    "quarantine",
  );
}

/**
 * After a sandboxed command: every protected path of the workspace roots that `before` (the walk that
 * built the command's mounts) did not hold is moved into a fresh folder under `folder`, keeping its
 * absolute path below it, and one line per path says so. A file `before` held is never touched, where it
 * was or moved with its folder (the same file, a `.git` of a renamed project). A sandbox could not
 * stop these: a mount point over an absent path would leave a file on the host.
 */
export function quarantineCreated(options: {
  readonly scanner: TreeScanner;
  readonly writableRoots: readonly string[];
  readonly before: CommandView;
  readonly folder: string;
}): QuarantineReport {
  const { scanner, writableRoots, before, folder } = options;
  let now: ScannedEntry[];
  try {
    now = protectedEntriesNow(scanner, writableRoots, before);
  } catch (error) {
    if (!(error instanceof ToolFailure)) throw error;
    return {
      quarantined: [],
      notes: [
        `the check for protected paths (.git, bridle.config.*, .bridle) the command may have created stopped: ${error.message}`,
      ],
    };
  }
  const known = new Set(before.protectedEntries.values());
  const created: { path: string; reason: string }[] = [];
  for (const entry of now) {
    // The same file where it was, or elsewhere (moved with its folder): the user's. A mount point cannot
    // be replaced, but a link (mounted at its target) can: a new file under an old name is the command's.
    const identity = identityOf(entry.path);
    if (identity === "" || known.has(identity)) continue;
    const reason = reasonFor(entry, writableRoots);
    if (reason !== undefined) created.push({ path: entry.path, reason });
  }
  const config = userConfigFolder();
  if (
    !before.configFolderExisted &&
    writableRoots.some((root) => isWithin(root, config)) &&
    existsSync(config)
  )
    created.push({
      path: config,
      reason:
        "it is the user's Bridle config folder (their settings, the trust they gave, the approval secret)",
    });
  if (created.length === 0) return { quarantined: [], notes: [] };

  const batch = join(
    folder,
    `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`,
  );
  const quarantined = created.map(({ path, reason }) => ({
    path,
    reason,
    movedTo: moveAside(path, join(batch, path)),
  }));
  const notes = quarantined.slice(0, MAX_NOTES).map((moved) => noteFor(moved, writableRoots));
  if (quarantined.length > MAX_NOTES)
    notes.push(
      `… and ${quarantined.length - MAX_NOTES} more protected paths the command created, moved under ${batch}`,
    );
  return { quarantined, notes };
}

/** Core's reason, judged relative to the root holding the entry; a link by the agent folder's name counts as that folder's content. */
function reasonFor(entry: ScannedEntry, roots: readonly string[]): string | undefined {
  const root = roots.find((candidate) => isWithin(candidate, entry.path));
  if (root === undefined) return undefined;
  const inside = relative(root, entry.path);
  const reason = protectedPathReason(inside);
  if (reason !== undefined || entry.kind !== "link") return reason;
  // Through the link, everything its target holds (or will hold) is read as the agent's folder's content.
  return protectedPathReason(join(inside, "content"));
}

/** Move `path` to `to`, across file systems too; undefined when it could not be moved. */
function moveAside(path: string, to: string): string | undefined {
  try {
    mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
    try {
      renameSync(path, to);
    } catch (error) {
      if (isErrno(error, "EACCES") || isErrno(error, "EPERM")) {
        // Moving a folder to another parent rewrites its `..`: a folder made without write permission
        // (ours: the sandbox ran as this user) needs it back first.
        if (lstatSync(path).isDirectory()) chmodSync(path, 0o700);
        renameSync(path, to);
      } else if (isErrno(error, "EXDEV")) {
        cpSync(path, to, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
        rmSync(path, { recursive: true, force: true });
      } else throw error;
    }
    return to;
  } catch {
    return undefined;
  }
}

function noteFor(moved: QuarantinedPath, roots: readonly string[]): string {
  const root = roots.find((candidate) => isWithin(candidate, moved.path));
  const shown = shorten(root === undefined ? moved.path : relative(root, moved.path) || moved.path);
  if (moved.movedTo === undefined)
    return `the command created ${shown}, which commands may not create (${moved.reason}): it could not be moved out of the workspace, is read-only from the next command on, and the user should remove it`;
  return `the command created ${shown}, which commands may not create (${moved.reason}): moved out of the workspace to ${shorten(moved.movedTo)}, nothing deleted`;
}

function shorten(path: string): string {
  if (path.length <= MAX_SHOWN_PATH) return path;
  const half = Math.floor((MAX_SHOWN_PATH - 1) / 2);
  return `${path.slice(0, half)}…${path.slice(-half)}`;
}
