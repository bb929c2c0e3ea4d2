export { type ApprovalSecretOptions, loadOrCreateApprovalSecret } from "./approval-secret.js";
export {
  type ApprovalCandidate,
  type ApprovalDecisions,
  type ApprovalPhase,
  askApprover,
  type PendingApproval,
  requiresApproval,
  settleApprovals,
} from "./approvals.js";
export type {
  ApprovalAnswer,
  ApprovalDecision,
  ApprovalRequest,
  Approver,
} from "./approver.js";
export { RETRYABLE_KINDS } from "./batch.js";
export {
  clip,
  DEFAULT_SUMMARY_INSTRUCTIONS,
  findCutPoint,
  isSummary,
  renderForSummary,
  SUMMARY_PREFIX,
  type SummaryOutcome,
  type SummaryRequest,
  summarize,
  summaryMessage,
} from "./compaction.js";
export {
  type CompactionOptions,
  type CompactionSettings,
  type ContextOptions,
  type ContextSettings,
  ContextTracker,
  contextSettings,
} from "./context.js";
export { BridleError, type BridleErrorCode, errorMessage, ModelRetry, ToolFailure } from "./errors.js";
export { EventQueue } from "./event-queue.js";
export * from "./events.js";
export { failureText, invalidInputText, summarizeValue } from "./failure-text.js";
export { Harness, type HarnessOptions } from "./harness.js";
export { closeDanglingCalls, type ResumeSource, resumeHistory } from "./history.js";
export {
  type AfterSubagentRunContext,
  type AfterToolCallContext,
  type AnyHook,
  type BeforeSubagentRunContext,
  type BeforeToolCallContext,
  CancelSwitch,
  defineHook,
  type Hook,
  type HookContextBase,
  type HookContexts,
  type HookEventName,
  type HookFailure,
  HookRunner,
  hookEventNames,
  type LimitReachedContext,
  type ReachedLimit,
  type RunEndContext,
  RunHooks,
  type RunStartContext,
  type SubagentHooks,
  type SubagentRunVerdict,
  type UserPromptSubmitContext,
} from "./hooks.js";
export {
  DEFAULT_INSTRUCTIONS,
  type InstructionsFile,
  type InstructionsSettings,
  readWorkspaceInstructions,
  withInstructions,
} from "./instructions.js";
export { type HarnessLimits, type HarnessLimitsInput, limitsSchema } from "./limits.js";
export { mcpToolName } from "./mcp-tool-name.js";
export * from "./messages.js";
export type * from "./model.js";
export type { EventObserver } from "./observers.js";
export {
  FINAL_RESULT_TOOL,
  type OutputMode,
  OutputPlan,
  type OutputSpec,
  type TurnResolution,
} from "./output.js";
export { argumentAliases, type ParsedArguments, parseToolArguments } from "./repair.js";
export {
  APPROVAL_ENVELOPE_KIND,
  APPROVAL_ENVELOPE_VERSION,
  type ApprovalEnvelope,
  canonicalJson,
  type OpenedEnvelope,
  openEnvelope,
  sealEnvelope,
  toolsetDigest,
} from "./resume-envelope.js";
export type { EventSink, RunIdentity } from "./run-context.js";
export type { ResumeOptions, RunInput, RunResult, RunStream } from "./run-types.js";
export { fieldKind, objectShape, toolJsonSchema, toolSchemaOf } from "./schema.js";
export { isSecretPath, SECRET_PATH_RULES, type SecretPathRules } from "./secrets.js";
export { DEFAULT_SPILL, type SpillDetails, type SpillSettings, spillResult } from "./spill.js";
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
export { matchText, type TextMatch } from "./text-match.js";
export {
  estimateMessagesTokens,
  estimateTextTokens,
  estimateTokens,
  type TokenEstimator,
} from "./token-estimate.js";
export {
  type AnyTool,
  defineTool,
  type PreparedArguments,
  type Tool,
  type ToolAnnotations,
  type ToolContext,
  type ToolOutput,
} from "./tool.js";
export { projectTranscript, TranscriptProjection } from "./transcript.js";
export { addUsage, emptyUsage, type RunUsage, type Usage } from "./usage.js";
export { type QueuedMessage, undeliveredMessages } from "./user-queue.js";
export { isErrno, Workspace, type WorkspaceOptions } from "./workspace.js";
