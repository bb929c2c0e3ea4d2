import { chown, copyFile, link, lstat, mkdir, open, readFile, rename, rmdir, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { BridleError, isErrno, ToolFailure } from "@bridle/core";
import { linkNew, tempSibling } from "@bridle/core/node";
import { type FileSnapshot, hashBytes } from "@bridle/tools-fs";

/** One change to the tree: a file's new bytes, or a file's removal. */
export type CommitStep =
  | {
      readonly kind: "write";
      readonly target: string;
      readonly bytes: Uint8Array;
      readonly like?: FileOwner;
      /** What the target was when the patch was planned against it (an existing target only). */
      readonly expected?: FileSnapshot;
    }
  | { readonly kind: "remove"; readonly target: string; readonly expected?: FileSnapshot };

/** Mode and owner a written file takes over (the file it replaces, or the one it was moved from). */
export interface FileOwner {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

export interface CommitOptions {
  /** Called before each step's rename: a seam for tests that make the n-th step fail. */
  readonly beforeStep?: (index: number, target: string) => void | Promise<void>;
  /** How a path is named in a message the model sees. */
  readonly display?: (path: string) => string;
}

interface Prepared {
  readonly step: CommitStep;
  /** The new bytes, beside the target (writes only). */
  temp?: string;
  /** The target's bytes before the commit (an existing target only). */
  backup?: string;
  /** The target did not exist: it is created without replacing anything that appears meanwhile. */
  create?: boolean;
  /** The target's inode when checked: another one there at the rename means someone replaced the file. */
  ino?: bigint;
  done: boolean;
}

/**
 * Applies every step or none. First everything that can fail slowly is done off to the side: missing
 * folders created, new bytes written and flushed to temp files, each existing target hard-linked to a
 * backup. Then the steps are renames, in order; if one fails, the renames already done are undone from
 * the backups and the folders this commit made are removed, so the tree is as it was.
 */
export async function commitAll(steps: readonly CommitStep[], options: CommitOptions = {}): Promise<void> {
  const display = options.display ?? ((path: string) => path);
  const prepared: Prepared[] = steps.map((step) => ({ step, done: false }));
  const createdDirs: string[] = [];
  try {
    for (const entry of prepared) await prepare(entry, createdDirs, display);
  } catch (error) {
    await discard(prepared, createdDirs);
    if (error instanceof ToolFailure) throw error;
    // Nothing was renamed yet: the tree is as it was, and the model can be told so.
    throw new ToolFailure(
      "ToolError",
      `apply_patch: nothing was changed. Preparing the new files failed (${describe(error)}).`,
      { cause: error },
    );
  }
  let failure: unknown;
  let failed: string | undefined;
  for (const [index, entry] of prepared.entries()) {
    try {
      await options.beforeStep?.(index, entry.step.target);
      if (entry.ino !== undefined) await assertSameInode(entry.step.target, entry.ino);
      if (entry.step.kind === "remove") await rename(entry.step.target, entry.backup as string);
      else if (entry.create) await createFrom(entry.temp as string, entry.step.target);
      else await rename(entry.temp as string, entry.step.target);
      entry.done = true;
    } catch (error) {
      failure = error;
      failed = entry.step.target;
      break;
    }
  }
  if (failure === undefined) {
    await Promise.all(
      prepared.map((entry) => (entry.backup ? unlink(entry.backup).catch(() => {}) : undefined)),
    );
    return;
  }
  const stuck = await rollBack(prepared);
  if (stuck.length > 0) {
    throw new BridleError(
      "tool_infrastructure",
      `apply_patch could not finish or undo its commit (${describe(failure)}); these files may be left changed, their old bytes are in the backups named: ${stuck.join("; ")}`,
      { cause: failure },
    );
  }
  await discard(prepared, createdDirs);
  if (isErrno(failure, "ECHANGED")) throw changedOnDisk(display(failed ?? ""));
  if (isErrno(failure, "EEXIST")) {
    throw new ToolFailure(
      "Conflict",
      `apply_patch: nothing was changed. ${display(failed ?? "")} was created by someone else while the patch was checked; read it, then retry.`,
    );
  }
  throw new ToolFailure(
    "ToolError",
    `apply_patch: nothing was changed. Committing ${display(failed ?? "")} failed (${describe(failure)}); every file was restored.`,
    { cause: failure },
  );
}

async function prepare(
  entry: Prepared,
  createdDirs: string[],
  display: (path: string) => string,
): Promise<void> {
  const { step } = entry;
  const existing = await lstat(step.target).catch((error: unknown) => {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  });
  if (!existing) entry.create = true;
  else {
    if (step.expected) await assertUnchanged(step.target, step.expected, display);
    entry.ino = (await lstat(step.target, { bigint: true })).ino;
    const backup = tempSibling(step.target, "bak");
    if (step.kind === "remove")
      entry.backup = backup; // the commit renames the file itself there
    else {
      await link(step.target, backup).catch(() => copyFile(step.target, backup));
      entry.backup = backup;
    }
  }
  if (step.kind !== "write") return;
  await makeParents(dirname(step.target), createdDirs);
  const temp = tempSibling(step.target);
  const mode = step.like?.mode ?? 0o644;
  const handle = await open(temp, "wx", mode);
  entry.temp = temp;
  try {
    await handle.writeFile(step.bytes);
    // open() applied the umask; the mode of the file this replaces wins.
    if (step.like) {
      await handle.chmod(mode);
      if (process.getuid?.() === 0 && step.like.uid !== 0)
        await chown(temp, step.like.uid, step.like.gid).catch(() => {});
    }
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

function changedOnDisk(shown: string): ToolFailure {
  return new ToolFailure(
    "Conflict",
    `apply_patch: nothing was changed. ${shown} changed on disk while the patch was being applied; read it again, then retry.`,
  );
}

/**
 * The file is still what the patch was planned against. Bridle's own writers wait on the locks; this
 * catches an editor or a shell that wrote meanwhile (by content when the plan read it whole).
 */
async function assertUnchanged(
  path: string,
  expected: FileSnapshot,
  display: (path: string) => string,
): Promise<void> {
  const stats = await lstat(path, { bigint: true });
  const same =
    expected.hash !== undefined
      ? hashBytes(await readFile(path)) === expected.hash
      : Number(stats.size) === expected.size &&
        stats.mtimeNs === expected.mtimeNs &&
        stats.ino === expected.ino;
  if (!same) throw changedOnDisk(display(path));
}

/** Just before a rename: the file there is still the one checked (a rename-over by someone else is not). */
async function assertSameInode(path: string, ino: bigint): Promise<void> {
  const stats = await lstat(path, { bigint: true }).catch(() => undefined);
  if (stats?.ino !== ino) throw Object.assign(new Error(`${path} was replaced`), { code: "ECHANGED" });
}

/** Put a new file in place only if nothing took its name since the check (then it is a Conflict). */
async function createFrom(temp: string, target: string): Promise<void> {
  if (!(await linkNew(temp, target))) {
    throw Object.assign(new Error(`${target} was created meanwhile`), { code: "EEXIST" });
  }
  await unlink(temp).catch(() => {});
}

async function makeParents(dir: string, createdDirs: string[]): Promise<void> {
  const missing: string[] = [];
  for (let current = dir; ; current = dirname(current)) {
    const found = await lstat(current).then(
      () => true,
      (error: unknown) => {
        if (isErrno(error, "ENOENT")) return false;
        throw error;
      },
    );
    if (found || dirname(current) === current) break;
    missing.unshift(current);
  }
  for (const folder of missing) {
    await mkdir(folder);
    createdDirs.push(folder);
  }
}

/** Undo the renames done, last first. Returns the backups that could not be put back. */
async function rollBack(prepared: readonly Prepared[]): Promise<string[]> {
  const stuck: string[] = [];
  for (const entry of [...prepared].reverse()) {
    if (!entry.done) continue;
    const { step } = entry;
    try {
      if (entry.backup) await rename(entry.backup, step.target);
      else await unlink(step.target);
      entry.done = false;
      entry.backup = undefined;
    } catch {
      stuck.push(entry.backup ?? step.target);
    }
  }
  return stuck;
}

/** Remove what a commit that did not happen left beside the targets: temps, unused backups, new folders. */
async function discard(prepared: readonly Prepared[], createdDirs: readonly string[]): Promise<void> {
  for (const entry of prepared) {
    if (entry.temp && !(entry.step.kind === "write" && entry.done)) await unlink(entry.temp).catch(() => {});
    // A removal's backup is the file itself until its rename happens; never delete it.
    if (entry.backup && entry.step.kind === "write") await unlink(entry.backup).catch(() => {});
  }
  for (const folder of [...createdDirs].reverse()) await rmdir(folder).catch(() => {});
}

function describe(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error)
    return String((error as { code: unknown }).code);
  return error instanceof Error ? error.message : String(error);
}
