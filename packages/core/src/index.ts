export type {
  ApprovalDecision,
  ApprovalRequest,
  Approver,
} from "./approver.js";
export { BridleError, type BridleErrorCode, errorMessage, ToolFailure } from "./errors.js";
export { EventQueue } from "./event-queue.js";
export * from "./events.js";
export { failureText, invalidInputText, summarizeValue } from "./failure-text.js";
export {
  Harness,
  type HarnessOptions,
  type RunInput,
  type RunResult,
  type RunStream,
} from "./harness.js";
export { type HarnessLimits, type HarnessLimitsInput, limitsSchema } from "./limits.js";
export * from "./messages.js";
export type * from "./model.js";
export { type ParsedArguments, parseToolArguments } from "./repair.js";
export type { EventSink, RunIdentity } from "./run-context.js";
export { fieldKind, objectShape, toolJsonSchema, toolSchemaOf } from "./schema.js";
export { isSecretPath } from "./secrets.js";
export type * from "./store.js";
export {
  type AnyTool,
  defineTool,
  type Tool,
  type ToolAnnotations,
  type ToolContext,
  type ToolOutput,
} from "./tool.js";
export { projectTranscript, TranscriptProjection } from "./transcript.js";
export { addUsage, emptyUsage, type RunUsage, type Usage } from "./usage.js";
export { isErrno, Workspace, type WorkspaceOptions } from "./workspace.js";
