export { type AtomicWriteOptions, writeFileAtomic } from "./atomic-write.js";
export type { EditFileDetails, EditHunk } from "./edit-file.js";
export { type CurrentFile, commitWrite, loadCurrent } from "./file-io.js";
export { withFileLock } from "./file-lock.js";
export { FileTracker, type FileTrackerOptions } from "./file-tracker.js";
export type { GlobDetails } from "./glob.js";
export type { GrepDetails } from "./grep.js";
export type { DirEntry, EntryKind, ListDirDetails } from "./list-dir.js";
export type { FsToolsOptions } from "./options.js";
export { resolveExistingOrSuggest } from "./paths.js";
export type { ReadFileDetails } from "./read-file.js";
export { locateRipgrep } from "./ripgrep.js";
export { type GrepLine, type RipgrepQuery, ripgrepArgs } from "./ripgrep-run.js";
export { type FileSnapshot, hashBytes, sameContent, snapshotOf, statSnapshot } from "./snapshot.js";
export {
  type DecodedText,
  decodeText,
  encodeText,
  looksBinary,
  type TextFormat,
  withLineEndings,
} from "./text-format.js";
export { createFsTools, type FsToolkit } from "./toolkit.js";
export type { WriteFileDetails } from "./write-file.js";
