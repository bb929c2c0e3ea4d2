export {
  type ActivationOptions,
  SKILL_TOOL_NAMES,
  SkillActivations,
} from "./activation.js";
export { parseAllowedTools } from "./allowed-tools.js";
export { type CatalogOptions, DEFAULT_CATALOG_HEADER, skillCatalog } from "./catalog.js";
export {
  type DiscoverOptions,
  type Discovery,
  type DiscoveryCache,
  discoverSkills,
  type LoadedSkill,
} from "./discover.js";
export { type FileListing, listSkillFiles, resolveInSkill } from "./files.js";
export { type FrontMatterResult, parseFrontMatter } from "./front-matter.js";
export { SkillRegistry, type SkillRegistryOptions } from "./registry.js";
export type { DuplicateSkill, Skill, SkillProblem, SkillWarning, SkillWarningCode } from "./skill.js";
export {
  CLAUDE_TOOL_NAMES,
  commandMatches,
  grantsOf,
  type SkillGrants,
  type ToolGrant,
} from "./tool-names.js";
export { DEFAULT_INTERPRETERS, type ScriptPlan } from "./tools/script-plan.js";
export { type SkillReadDetails, type SkillReadOptions, skillReadInputSchema } from "./tools/skill-read.js";
export {
  type SkillRunDetails,
  type SkillRunOptions,
  type SkillRunResult,
  skillRunInputSchema,
} from "./tools/skill-run.js";
export { createSkillTools, type SkillTools, type SkillToolsOptions } from "./tools/skill-tools.js";
export {
  ALLOWED_FRONT_MATTER_FIELDS,
  MAX_COMPATIBILITY_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
} from "./validate.js";
export { SKILL_FILE, validateSkill } from "./validate-skill.js";
