export {
  Checkpoints,
  type CheckpointsOptions,
  type RewindConflict,
  RewindError,
  type RewindErrorCode,
  type RewindPlan,
  type RewindRestore,
  type RewindTurn,
} from "./checkpoints.js";
export { type FileEntry, type FileState, MAX_SCANNED_FILES } from "./entries.js";
export { REWIND_LIMITS } from "./limits.js";
