import type { Stats } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { ToolFailure, type Workspace } from "@bridle/core";
import { looksBinary, parseDocument, type TextDocument } from "./document.js";

export interface LoadedFile {
  readonly realPath: string;
  /** The path as the model should see it. */
  readonly shown: string;
  readonly stats: Stats;
  readonly bytes: Buffer;
  readonly doc: TextDocument;
}

/** Resolve a path through the workspace policy and load it as text, or fail in words the model can act on. */
export async function loadTextFile(
  workspace: Workspace,
  path: string,
  maxBytes: number,
): Promise<LoadedFile> {
  const realPath = await workspace.resolveExisting(path);
  const shown = workspace.display(realPath);
  const stats = await stat(realPath);
  if (stats.isDirectory()) {
    throw new ToolFailure("InvalidInput", `${shown} is a directory, not a file; list it with list_dir`);
  }
  if (!stats.isFile()) throw new ToolFailure("InvalidInput", `${shown} is not a regular file`);
  if (stats.size > maxBytes) {
    throw new ToolFailure(
      "InvalidInput",
      `${shown} is ${stats.size} bytes, over the ${maxBytes}-byte limit for hashline reading and editing`,
    );
  }
  const bytes = await readFile(realPath);
  if (looksBinary(bytes)) {
    throw new ToolFailure(
      "InvalidInput",
      `${shown} is a binary file (${bytes.length} bytes); it has no lines to show`,
    );
  }
  return { realPath, shown, stats, bytes, doc: parseDocument(bytes) };
}
