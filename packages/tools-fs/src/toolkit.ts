import type { AnyTool } from "@bridle/core";
import { createEditFileTool } from "./edit-file.js";
import type { FileTracker } from "./file-tracker.js";
import { createGlobTool } from "./glob.js";
import { createGrepTool } from "./grep.js";
import { createListDirTool } from "./list-dir.js";
import { type FsToolsOptions, resolveSettings } from "./options.js";
import { createReadFileTool } from "./read-file.js";
import { createWriteFileTool } from "./write-file.js";

export interface FsToolkit {
  readonly readFile: ReturnType<typeof createReadFileTool>;
  readonly writeFile: ReturnType<typeof createWriteFileTool>;
  readonly editFile: ReturnType<typeof createEditFileTool>;
  readonly listDir: ReturnType<typeof createListDirTool>;
  readonly glob: ReturnType<typeof createGlobTool>;
  readonly grep: ReturnType<typeof createGrepTool>;
  /** All six, ready for `new Harness({ tools })`. */
  readonly tools: readonly AnyTool[];
  /** The read-before-write memory the mutating tools share. */
  readonly tracker: FileTracker;
}

/**
 * The filesystem tools, sharing one FileTracker: a file read by read_file in a run may then be written
 * or edited in that run, and only while it is unchanged on disk. Reuse one toolkit for every run of a
 * harness; its state is keyed by run id.
 */
export function createFsTools(options: FsToolsOptions = {}): FsToolkit {
  const settings = resolveSettings(options);
  const readFile = createReadFileTool(settings);
  const writeFile = createWriteFileTool(settings);
  const editFile = createEditFileTool(settings);
  const listDir = createListDirTool(settings);
  const glob = createGlobTool(settings);
  const grep = createGrepTool(settings);
  return {
    readFile,
    writeFile,
    editFile,
    listDir,
    glob,
    grep,
    tools: [readFile, writeFile, editFile, listDir, glob, grep],
    tracker: settings.tracker,
  };
}
