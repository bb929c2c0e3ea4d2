import { ToolFailure, type Workspace } from "@bridle/core";
import { type FileSnapshot, openInside, snapshotOf } from "@bridle/tools-fs";
import { looksBinary, TextDocument } from "./document.js";

export interface LoadedFile {
  readonly realPath: string;
  /** The path as the model should see it. */
  readonly shown: string;
  /** What the read-before-write rule compares (stat fields and a hash of the bytes). */
  readonly snapshot: FileSnapshot;
  readonly bytes: Buffer;
  readonly doc: TextDocument;
}

/**
 * Open a path through the workspace policy (the opened descriptor is what is checked, so a link swapped
 * mid-call cannot lead the read outside) and load it as text, or fail in words the model can act on.
 */
export async function loadTextFile(
  workspace: Workspace,
  path: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<LoadedFile> {
  const { handle, real, stats } = await openInside(workspace, path);
  try {
    const shown = workspace.display(real);
    if (stats.isDirectory()) {
      throw new ToolFailure("InvalidInput", `${shown} is a directory, not a file; list it with list_dir`);
    }
    if (!stats.isFile()) throw new ToolFailure("InvalidInput", `${shown} is not a regular file`);
    if (stats.size > BigInt(maxBytes)) {
      throw new ToolFailure(
        "InvalidInput",
        `${shown} is ${stats.size} bytes, over the ${maxBytes}-byte limit for hashline reading and editing`,
      );
    }
    const bytes = await handle.readFile(signal ? { signal } : {});
    return textFile(real, shown, bytes, snapshotOf(stats, bytes));
  } finally {
    await handle.close();
  }
}

/** Bytes already loaded (by the read, or by the edit's locked load) as a text file. */
export function textFile(realPath: string, shown: string, bytes: Buffer, snapshot: FileSnapshot): LoadedFile {
  // Anywhere in the file, not only near the start: a tagged edit must never rewrite a binary file.
  if (looksBinary(bytes)) {
    throw new ToolFailure(
      "InvalidInput",
      `${shown} is a binary file (${bytes.length} bytes); it has no lines to show`,
    );
  }
  return { realPath, shown, snapshot, bytes, doc: new TextDocument(bytes) };
}
