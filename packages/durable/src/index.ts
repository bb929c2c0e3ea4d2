export { type DbosEngineOptions, launchDbosEngine } from "./dbos-engine.js";
export {
  type DbosConnection,
  DbosRunQueue,
  DEFAULT_SCHEMA,
  QUEUE_NAME,
  RUN_FORMAT_VERSION,
} from "./dbos-queue.js";
export { describeWait, type OnWaiting } from "./durable-approver.js";
export { type DurableRepeatNote, repeatable } from "./durable-tool.js";
export type {
  ComposeAgent,
  DurableAgent,
  DurableEngine,
  DurableHandle,
  DurableRunInfo,
  DurableRunOutcome,
  DurableRunRequest,
  DurableRunStatus,
  JsonValue,
  PendingDurableApproval,
  RunQueue,
} from "./engine.js";
