export { type CheckOptions, CommandPolicy, checkCommand } from "./policy/check.js";
export { loadBashParser } from "./policy/grammar.js";
export { type CanonicalArgs, canonicalArgs, ruleFor, validateRules } from "./policy/rules.js";
export type {
  CommandPolicyOptions,
  Decision,
  PathUse,
  PolicyBudget,
  PolicyMode,
  PolicyResult,
  PolicyRule,
  SubcommandReport,
} from "./policy/types.js";
