export {
  type HookScriptOptions,
  type HookScripts,
  HookSettingsError,
  hooksFromSettings,
  type SessionEndReason,
} from "./hooks-from-settings.js";
export {
  type ClaudeSettingsScope,
  type ClaudeSettingsSource,
  claudeSettingsPaths,
  readClaudeHookSettings,
} from "./read-settings.js";
export type { HookScriptReport } from "./script-runner.js";
export type { ClaudeHookEvent, HookCommand, HookSettings } from "./settings.js";
