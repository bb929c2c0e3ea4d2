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
export {
  COMMAND_CHANGE_LIMITS,
  type CommandChanges,
  type CommandSnapshot,
  CommandWatch,
  type UnshownChange,
} from "./command-changes.js";
export { type FileEntry, type FileState, MAX_SCANNED_FILES } from "./entries.js";
export { REWIND_LIMITS } from "./limits.js";
