// `@bridle/core/node`: the small file-system and process rules every package shares, one home each.

export { userConfigFolder } from "../protected-paths.js";
export {
  type AtomicWriteOptions,
  linkNew,
  syncFolder,
  tempSibling,
  writeFileAtomic,
  writeFileAtomicSync,
} from "./atomic-write.js";
export { type FileBytes, readRegularFile } from "./bounded-read.js";
export {
  type ChildLinesOptions,
  type ChildLinesResult,
  type LineSplitter,
  type LineVerdict,
  lineSplitter,
  readChildLines,
} from "./child-lines.js";
export { isErrno } from "./errno.js";
export { isWithin, isWithinAny, isWithinResolved, realPathOf } from "./is-within.js";
export {
  discoverRepository,
  type FoundRepository,
  foldersFromRepositoryTop,
  isGitDirectory,
} from "./repository.js";
export { type QuoteStyle, shellCommand, shellQuote } from "./shell-quote.js";
