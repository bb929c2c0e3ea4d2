export { type CallsOutcome, type ObservedTool, observe, runCalls, settlesWithin } from "./harness-run.js";
export { type InvalidCall, invalidCalls } from "./invalid-arguments.js";
export {
  MAX_DESCRIPTION_CHARS,
  TOOL_NAME_PATTERN,
  toolDeclarationProblems,
  toolOutputProblems,
} from "./static-checks.js";
