import type { BigIntStats } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { ToolFailure, type Workspace } from "@bridle/core";
import { type FileSnapshot, resolveExistingOrSuggest, snapshotOf } from "@bridle/tools-fs";
import { looksBinary, TextDocument } from "./document.js";

export interface LoadedFile {
  readonly realPath: string;
  /** The path as the model should see it. */
  readonly shown: string;
  readonly stats: BigIntStats;
  /** What the read-before-write rule compares (stat fields and a hash of the bytes). */
  readonly snapshot: FileSnapshot;
  readonly bytes: Buffer;
  readonly doc: TextDocument;
}

/** Resolve a path through the workspace policy and load it as text, or fail in words the model can act on. */
export async function loadTextFile(
  workspace: Workspace,
  path: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<LoadedFile> {
  const realPath = await resolveExistingOrSuggest(workspace, path);
  const shown = workspace.display(realPath);
  const stats = await stat(realPath, { bigint: true });
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
  const bytes = await readFile(realPath, signal ? { signal } : {});
  // Anywhere in the file, not only near the start: a tagged edit must never rewrite a binary file.
  if (looksBinary(bytes)) {
    throw new ToolFailure(
      "InvalidInput",
      `${shown} is a binary file (${bytes.length} bytes); it has no lines to show`,
    );
  }
  return { realPath, shown, stats, snapshot: snapshotOf(stats, bytes), bytes, doc: new TextDocument(bytes) };
}
