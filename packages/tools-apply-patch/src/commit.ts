import { randomBytes } from "node:crypto";
import { chown, copyFile, link, lstat, mkdir, open, rename, rmdir, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { BridleError, isErrno, ToolFailure } from "@bridle/core";

/** One change to the tree: a file's new bytes, or a file's removal. */
export type CommitStep =
  | { readonly kind: "write"; readonly target: string; readonly bytes: Uint8Array; readonly like?: FileOwner }
  | { readonly kind: "remove"; readonly target: string };

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
  done: boolean;
}

const sibling = (target: string, suffix: string) =>
  join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.${suffix}`);

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
    for (const entry of prepared) await prepare(entry, createdDirs);
  } catch (error) {
    await discard(prepared, createdDirs);
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

async function prepare(entry: Prepared, createdDirs: string[]): Promise<void> {
  const { step } = entry;
  const existing = await lstat(step.target).catch((error: unknown) => {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  });
  if (!existing) entry.create = true;
  else {
    const backup = sibling(step.target, "bridle-bak");
    if (step.kind === "remove")
      entry.backup = backup; // the commit renames the file itself there
    else {
      await link(step.target, backup).catch(() => copyFile(step.target, backup));
      entry.backup = backup;
    }
  }
  if (step.kind !== "write") return;
  await makeParents(dirname(step.target), createdDirs);
  const temp = sibling(step.target, "bridle-tmp");
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

/**
 * Put a new file in place only if nothing took its name since the check: link() refuses an existing name
 * where rename() would replace it. A filesystem without hard links gets the rename.
 */
async function createFrom(temp: string, target: string): Promise<void> {
  try {
    await link(temp, target);
  } catch (error) {
    if (isErrno(error, "EEXIST")) throw error;
    await rename(temp, target);
    return;
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
