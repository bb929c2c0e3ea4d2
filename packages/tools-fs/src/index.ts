export type { EditFileDetails, EditHunk } from "./edit-file.js";
export { textSimilarity } from "./edit-hints.js";
export { type EditPlan, planTextEdit, type TextEdit } from "./edit-match.js";
export { EscapeLexer, type Stray } from "./escape-lexer.js";
export { FileTracker, type FileTrackerOptions } from "./file-tracker.js";
export type { GlobDetails } from "./glob.js";
export type { GrepDetails } from "./grep.js";
export type { DirEntry, EntryKind, ListDirDetails } from "./list-dir.js";
export { type OpenedInside, openInside } from "./open-inside.js";
export type { FsToolsOptions } from "./options.js";
export { resolveExistingOrSuggest } from "./paths.js";
export type { ReadFileDetails } from "./read-file.js";
export { escapeRestoresOld, quotesRestoreOld, type RestoredOld } from "./restore-old.js";
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
export {
  type CurrentFile,
  type FileChange,
  type UpdateOptions,
  type UpdateTarget,
  updateFile,
} from "./update-file.js";
export { wholeToolScope } from "./whole-tool-scope.js";
export type { WriteFileDetails } from "./write-file.js";
