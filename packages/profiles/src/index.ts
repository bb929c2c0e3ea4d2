export { adaptTool, type ToolAdapter } from "./adapt.js";
export {
  type Choice,
  chooseEditFormat,
  chooseProfile,
  type ModelFamily,
  modelFamily,
  type ProviderKind,
} from "./choose.js";
export { EDIT_FORMATS, type EditFormat, PROFILE_NAMES, type ProfileName } from "./names.js";
export { createPlanTool, type PlanDetails, type PlanStep } from "./plan-tool.js";
export { type ProfileToolsOptions, profileTools } from "./profile-tools.js";
