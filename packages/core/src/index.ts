export { type ApprovalSecretOptions, loadOrCreateApprovalSecret } from "./approval-secret.js";
export {
  type ApprovalCandidate,
  type ApprovalDecisions,
  type ApprovalPhase,
  askApprover,
  type PendingApproval,
  settleApprovals,
} from "./approvals.js";
export type {
  ApprovalAnswer,
  ApprovalDecision,
  ApprovalRequest,
  ApprovalScope,
  Approver,
} from "./approver.js";
export {
  DEFAULT_SUMMARY_INSTRUCTIONS,
  type SummaryOutcome,
  type SummaryRequest,
  summarize,
  summaryMessage,
} from "./compaction.js";
export type { BeforeCompactionInput, CompactionTrigger, CompactionVerdict } from "./compaction-hook.js";
export type { CompactionOptions, CompactionSettings, ContextOptions, ContextSettings } from "./context.js";
export { BridleError, type BridleErrorCode, errorMessage, ModelRetry, ToolFailure } from "./errors.js";
export type * from "./events.js";
export {
  type FileDiff,
  type FileDiffOptions,
  fileDiff,
  fileDiffsOf,
  MAX_FILE_DIFF_LINES,
} from "./file-diff.js";
export { Harness, type HarnessOptions } from "./harness.js";
export { type ContinueSource, closeDanglingCalls } from "./history.js";
export {
  type AfterSubagentRunContext,
  type AfterSubagentRunInput,
  type AfterToolCallContext,
  type AfterToolCallInput,
  type AnyHook,
  type BeforeStopInput,
  type BeforeSubagentRunContext,
  type BeforeSubagentRunInput,
  type BeforeToolCallContext,
  type BeforeToolCallInput,
  defineHook,
  type Hook,
  type HookContextBase,
  type HookContexts,
  type HookEventName,
  type HookFailure,
  type HookInputBase,
  type HookInputs,
  type LimitReachedContext,
  type LimitReachedInput,
  type ReachedLimit,
  type RunEndContext,
  type RunEndInput,
  type RunStartContext,
  type RunStartInput,
  type SubagentHooks,
  type SubagentRunVerdict,
  type UserPromptSubmitContext,
  type UserPromptSubmitInput,
} from "./hooks.js";
export {
  type InstructionsFile,
  type InstructionsSettings,
  instructionsName,
  type ReadInstructionsOptions,
  readWorkspaceInstructions,
  type SkippedInstructions,
  withInstructions,
} from "./instructions.js";
export { type HarnessLimits, type HarnessLimitsInput, limitsSchema } from "./limits.js";
export { diffLines, type Hunk, type LineDiff } from "./line-diff.js";
export { mcpToolName, mcpToolPrefix } from "./mcp-tool-name.js";
export * from "./messages.js";
export type * from "./model.js";
export { isErrno } from "./node/errno.js";
export { isWithin } from "./node/is-within.js";
export type { EventObserver } from "./observers.js";
export type { OutputMode, OutputSpec, TurnResolution } from "./output.js";
export {
  PROTECTED_PATH_RULES,
  type ProtectedPathRules,
  protectedPathReason,
  userConfigFolder,
} from "./protected-paths.js";
export { refusedCallResult, type SettledApproval } from "./refused-call.js";
export { argumentAliases, type ParsedArguments, parseToolArguments } from "./repair.js";
export type { RequestSetup } from "./request-setup.js";
export type { ApprovalEnvelope, OpenedEnvelope } from "./resume-envelope.js";
export type { EventSink, RunIdentity } from "./run-context.js";
export type { ResumeOptions, RunInput, RunResult, RunStream } from "./run-types.js";
export { objectShape, toolJsonSchema, toolSchemaOf } from "./schema.js";
export { isSecretPath, SECRET_PATH_RULES, type SecretPathRules } from "./secrets.js";
export { DEFAULT_SPILL, type SpillDetails, type SpillSettings } from "./spill.js";
export {
  assertForkPoint,
  assertSessionId,
  type CreateSessionOptions,
  DEFAULT_BLOB_THRESHOLD,
  type EventRecord,
  type ForkOptions,
  fromEventRecord,
  type RestoredEvent,
  type SearchHit,
  type SearchOptions,
  type SessionInfo,
  type SessionStore,
  type StoreDamage,
  type StoredEvent,
  searchableText,
  searchTerms,
  sessionSink,
  sessionTranscript,
  storeDamageEvent,
  toEventRecord,
} from "./store.js";
export { isSubagentEventData, type SubagentEventData, subagentEventOf } from "./subagent-events.js";
export { matchText, type TextMatch } from "./text-match.js";
export { estimateMessagesTokens, estimateTextTokens, type TokenEstimator } from "./token-estimate.js";
export {
  type AnyTool,
  type ApprovalCheckEnv,
  type ChildRuns,
  defineTool,
  type PreparedArguments,
  type Tool,
  type ToolAnnotations,
  type ToolCallEnv,
  type ToolContext,
  type ToolOutput,
} from "./tool.js";
export { type CallEnvironment, type CallOutcome, executeCall } from "./tool-call.js";
export type { ToolSource } from "./tool-source.js";
export { projectTranscript, TranscriptProjection } from "./transcript.js";
export type { RunUsage, Usage } from "./usage.js";
export { type QueuedMessage, undeliveredMessages } from "./user-queue.js";
export { Workspace, type WorkspaceOptions } from "./workspace.js";
