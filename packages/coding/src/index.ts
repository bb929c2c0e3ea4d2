export type { CheckEntry } from "./check-history.js";
export {
  buildEvidence,
  type Evidence,
  formatHandoff,
  type HandoffOutcome,
  handoffExitCode,
  handoffOutcome,
} from "./evidence.js";
export {
  type BaselineFact,
  type ChangedFile,
  type ChangesFact,
  type CheckFact,
  type CheckKind,
  type CheckStatus,
  type ChecksDetectedFact,
  type CommandFact,
  type CommandStep,
  type DetectedCheck,
  FACT,
  type HistoryFact,
  type NotesFact,
  type PlanFact,
  type PlanItem,
  type PreexistingChange,
  type ReviewFlag,
} from "./facts.js";
export { type CodingOverlay, type CodingOverlayOptions, createCodingOverlay } from "./overlay.js";
export {
  Checkpoints,
  type CheckpointsOptions,
  type FileEntry,
  type FileState,
  MAX_SCANNED_FILES,
  REWIND_LIMITS,
  type RewindConflict,
  RewindError,
  type RewindErrorCode,
  type RewindPlan,
  type RewindRestore,
  type RewindTurn,
} from "./rewind/index.js";
