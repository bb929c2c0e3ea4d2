import { lstat } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { isErrno, ToolFailure, type Workspace } from "@bridle/core";
import { resolveExistingOrSuggest } from "@bridle/tools-fs";

/**
 * A file the patch updates, deletes or moves, through the workspace policy. It is judged as a write first
 * (core refuses protected paths there, existing or not), then must exist. A delete or a move acts on the
 * path itself, so a symbolic link there is refused: following it would remove or rename the file it points
 * at, not the link the model named.
 */
export async function resolveExistingFile(
  workspace: Workspace,
  path: string,
  actsOnLink: boolean,
): Promise<string> {
  await workspace.resolveForWrite(path).catch(missingIsNotJudged);
  const real = await resolveExistingOrSuggest(workspace, path);
  if (actsOnLink && (await lstatOrUndefined(resolve(workspace.root, path)))?.isSymbolicLink()) {
    throw new ToolFailure(
      "Denied",
      `apply_patch: nothing was changed. ${path} is a symbolic link; apply_patch does not delete or move links.`,
    );
  }
  return real;
}

/**
 * Where a new file (an Add, or a Move's destination) will be written, checked now but created by the commit:
 * missing folders are not made here, so a patch that fails later leaves no folder behind.
 */
export async function resolveNewFile(workspace: Workspace, path: string): Promise<string> {
  const absolute = resolve(workspace.root, path);
  const parent = dirname(absolute);
  const parentStats = await lstatOrUndefined(parent);
  if (parentStats?.isFile()) {
    throw new ToolFailure(
      "InvalidInput",
      `apply_patch: nothing was changed. ${workspace.display(parent)} is a file, not a folder, so ${path} cannot be created.`,
    );
  }
  // Core judges the path as a write (inside, not secret, not protected, as written and as resolved) whether
  // or not its folders exist yet; it answers NotFound only for the missing folders, which the commit makes.
  const judged = await workspace.resolveForWrite(path).catch(missingIsNotJudged);
  if (judged !== undefined) return judged;
  let ancestor = dirname(parent);
  while ((await lstatOrUndefined(ancestor)) === undefined && dirname(ancestor) !== ancestor)
    ancestor = dirname(ancestor);
  // The nearest existing folder carries the policy (inside a root, no symlink out); below it nothing exists yet.
  const realAncestor = await workspace.resolveExisting(ancestor);
  if (!(await lstat(realAncestor)).isDirectory()) {
    throw new ToolFailure(
      "InvalidInput",
      `apply_patch: nothing was changed. ${workspace.display(realAncestor)} is a file, not a folder, so ${path} cannot be created.`,
    );
  }
  const real = join(realAncestor, relative(ancestor, absolute));
  if (workspace.isSecret(absolute) || workspace.isSecret(real)) {
    throw new ToolFailure(
      "Denied",
      `${path} looks like a secret (credentials, keys, .env); access is denied`,
    );
  }
  return real;
}

/** A missing folder, or a file where a folder should be: not a verdict; the caller's own look says which. */
function missingIsNotJudged(error: unknown): undefined {
  if ((error instanceof ToolFailure && error.kind === "NotFound") || isErrno(error, "ENOTDIR"))
    return undefined;
  throw error;
}

async function lstatOrUndefined(path: string) {
  return lstat(path).catch((error: unknown) => {
    if (isErrno(error, "ENOENT") || isErrno(error, "ENOTDIR")) return undefined;
    throw error;
  });
}
