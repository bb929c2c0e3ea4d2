export { contextWindowOf, UNKNOWN_WINDOW, type WindowChoice } from "./context-window.js";
export { CodingAgentError, type CodingAgentErrorCode } from "./errors.js";
export type { Kit } from "./kit.js";
export { describeChoice, type ToolChoice, toolChoice } from "./profile.js";
export { type ProviderChoiceOptions, settleProvider } from "./provider-choice.js";
export { allProviders, createModel, endpointOf, PROVIDER_NAMES, providerNamed } from "./providers.js";
export {
  type CodingAgent,
  type CodingAgentMode,
  type CodingAgentOptions,
  createCodingAgent,
} from "./recipe.js";
export {
  isSessionMode,
  MODE_DESCRIPTIONS,
  ModeSwitch,
  SESSION_MODES,
  type SessionMode,
} from "./session-mode.js";
export { type SessionPageOptions, sessionPageOptions } from "./session-pages.js";
export {
  type AgentFile,
  type CodingAgentSettings,
  type CodingChoice,
  DEFAULT_CODING,
  type EditFormatChoice,
  type PermissionRules,
  type ProfileChoice,
  type StoreKind,
} from "./settings.js";
export { openStore } from "./stores.js";
export type { ChildListener } from "./subagents.js";
export { SYSTEM_PROMPT } from "./system-prompt.js";
export type { McpClientOptions, McpPromptSource } from "./tools.js";
export type { QuestionOption, UserAnswer, UserQuestion, UserQuestions } from "./user-questions.js";
export { userDataDir, workspaceDataDir, workspaceKey } from "./workspace-data.js";
export { sessionWorkspace, WorkspaceSessions } from "./workspace-sessions.js";
