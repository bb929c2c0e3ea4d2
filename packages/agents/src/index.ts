export {
  Agents,
  type AgentsOptions,
  type LiveAgent,
  type ParentOptions,
  type RunTasksFact,
} from "./agents.js";
export {
  type ChildEventMode,
  isSubagentEventData,
  type SubagentEventData,
  subagentEventOf,
  withSubagentEvents,
} from "./child-events.js";
export { checkDefinition, type SubagentDefinition } from "./definition.js";
export { isSpawning } from "./depth.js";
export { loadAgentDefinitions, parseAgentMarkdown } from "./markdown.js";
export { createParallelLlmTool, type ParallelLlmEntry, type ParallelLlmOptions } from "./parallel-llm.js";
export { AgentTask, type TaskStatus } from "./task.js";
export { AGENT_TOOL_NAMES } from "./tools/agent-tools.js";
export type { TaskReport } from "./tools/report.js";
