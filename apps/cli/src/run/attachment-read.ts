// The one guarded read behind everything a person names in a prompt (`@path`, an image path, `--image`):
// the agent's own limits (core's Workspace) hold for what the person sends as for what the agent reads.
import { type BridleError, ToolFailure, userConfigFolder, Workspace } from "@bridle/core";
import { readRegularFile } from "@bridle/core/node";

/** What a guarded read of a named file gave: its bytes and shown path, or why not. */
export type AttachmentRead =
  | { readonly kind: "absent" }
  | { readonly kind: "refused"; readonly reason: string }
  | { readonly kind: "too_large" }
  | { readonly kind: "bytes"; readonly path: string; readonly bytes: Buffer };

/**
 * A file a person named in a prompt, read under the agent's own limits: inside the workspace, not secret,
 * not protected, a regular file of at most `limit` bytes. `absent` when the path names nothing.
 */
export async function readAttachment(
  workspace: Workspace,
  path: string,
  limit: number,
): Promise<AttachmentRead> {
  let real: string;
  try {
    real = await workspace.resolveExisting(path);
  } catch (error) {
    if (error instanceof ToolFailure) {
      // A word that names nothing here (a handle, a decorator) is just a word.
      return error.kind === "NotFound" ? { kind: "absent" } : { kind: "refused", reason: error.message };
    }
    throw error;
  }
  const protectedReason = workspace.protectedReason(real);
  if (protectedReason) return { kind: "refused", reason: `${path} is protected: ${protectedReason}` };
  try {
    const read = await readRegularFile(real, limit);
    // Judged again by what was opened: a link swapped after the check cannot lead outside.
    if (!(await workspace.contains(read.realPath)) || workspace.isSecret(read.realPath)) {
      return { kind: "refused", reason: `${path} changed while it was read` };
    }
    return { kind: "bytes", path: workspace.display(real), bytes: read.bytes };
  } catch (error) {
    const code = (error as BridleError | NodeJS.ErrnoException).code;
    if (code === "file_too_large") return { kind: "too_large" };
    if (code === "not_regular_file") return { kind: "refused", reason: `${path} is not a regular file` };
    if (code === "EISDIR") return { kind: "refused", reason: `${path} is a folder; name a file` };
    return { kind: "refused", reason: `${path}: ${(error as Error).message}` };
  }
}

/** The workspace a prompt's files are read under: the agent's own rules, the user's config folder kept out. */
export function attachmentWorkspace(cwd: string): Workspace {
  return new Workspace({ roots: [cwd], protectedPaths: [userConfigFolder()] });
}
