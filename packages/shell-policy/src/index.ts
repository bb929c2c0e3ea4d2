export { type CheckOptions, CommandPolicy, checkCommand } from "./check.js";
export { loadBashParser } from "./grammar.js";
export type { PolicyIsolation } from "./isolation.js";
export { realRootsOf } from "./paths.js";
export {
  type CanonicalArgs,
  canonicalArgs,
  matchingRule,
  ruleFor,
  validateRules,
} from "./rules.js";
export type {
  CommandPolicyOptions,
  Decision,
  PathUse,
  PolicyBudget,
  PolicyMode,
  PolicyResult,
  PolicyRule,
  SubcommandReport,
} from "./types.js";
export { neverSaveReason, scriptRunnerReason } from "./wrappers.js";
export { type CommandWrites, commandWrites } from "./writes.js";
