export {
  type ApplyPatchOptions,
  type ApplyPatchResult,
  applyPatch,
  type PatchedFile,
} from "./engine.js";
export { APPLY_PATCH_LARK_GRAMMAR } from "./grammar.js";
export type { Tolerance, ToleranceKind } from "./tolerance.js";
export {
  type ApplyPatchDetails,
  type ApplyPatchSchema,
  type ApplyPatchTool,
  type ApplyPatchToolOptions,
  createApplyPatchTool,
} from "./tool.js";
